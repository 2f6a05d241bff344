// auto_choice_html.hpp — what `--strategy auto` weighed, as a section of the HTML pages of `schedule` and `simulate`:
// the kernel model and lengths it weighed for, then every candidate in the order weighed with its predicted time (or
// the bound that ruled it out), the margin it had to win by, and the one chosen marked.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace leanattn::app {

// `auto_choice`: auto_choice_json's document (null: none, and the section is empty). The chosen candidate is the one
// whose strategy and grid are the plan's (`strategy`, `grid`) and whose time is the choice's.
std::string auto_choice_html(const nlohmann::ordered_json& auto_choice, const std::string& strategy, std::int64_t grid);

// What chose the plan, for a picture's title: "auto (kernel model leanattn-h100)"; "" for null (the strategy asked for).
std::string auto_chooser(const nlohmann::ordered_json& auto_choice);

}  // namespace leanattn::app

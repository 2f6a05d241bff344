// schedule_json.hpp — `schedule --format json`, exactly the keys docs/design.md promises.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

// Writes the plan as nlohmann's dump(2) would print it whole, one CTA and one output at a time: a document of every
// segment of a large plan is never built (its tree took ~10x the text's memory, and destroying one after an
// out-of-memory error allocates, which ends the process instead of reporting the error). No trailing newline.
// `auto_choice` (auto_choice_json, --strategy auto), unless null, is written as the key "auto" before the arrays.
void write_schedule_json(std::ostream& out, const Schedule& schedule, const ScheduleTable& table, const nlohmann::ordered_json& auto_choice = nullptr);

// The same as a string (the C ABI's reports).
std::string schedule_json(const Schedule& schedule, const ScheduleTable& table, const nlohmann::ordered_json& auto_choice = nullptr);

}  // namespace leanattn::app

// schedule_html.hpp — `schedule --format html`: one self-contained page (no external resources) about a plan:
// the problem and plan summary, the schedule picture inlined (schedule_svg.hpp), how to read its marks, and a
// table of outputs with their host and contributors (capped for big problems: --format json has them all).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

// `auto_choice`: with --strategy auto, what it weighed (auto_choice_json), shown after the plan; null: nothing.
void write_schedule_html(std::ostream& out, const Schedule& schedule, const ScheduleTable& table, const nlohmann::ordered_json& auto_choice = nullptr);

}  // namespace leanattn::app

// schedule_html.hpp — `schedule --format html`: one self-contained page (no external resources) about a plan:
// the problem and plan summary, the schedule picture inlined (schedule_svg.hpp), how to read its marks, and a
// table of outputs with their host and contributors (capped for big problems: --format json has them all).
#pragma once

#include <ostream>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

void write_schedule_html(std::ostream& out, const Schedule& schedule, const ScheduleTable& table);

}  // namespace leanattn::app

// schedule_svg.hpp — `schedule --format svg|html`: the plan drawn like the paper's Figure 1.
//
// One row per SM (split into one lane per resident CTA slot when CTAs per SM > 1); x is idealised time in
// LeanTiles, every LeanTile costing the same: CTAs of later waves start when the CTA before them in the
// same slot ends. Segments are colored by output and labeled when wide enough; a stream-k host that must
// wait for its peers' partials shows the wait hatched, then its reduction; fixed-split's second launch is
// a band after the last wave. The HTML page wraps the same SVG with the plan's summary and output table.
#pragma once

#include <ostream>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

void write_schedule_svg(std::ostream& out, const Schedule& schedule, const ScheduleTable& table);
void write_schedule_html(std::ostream& out, const Schedule& schedule, const ScheduleTable& table);

}  // namespace leanattn::app

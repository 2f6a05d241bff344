// schedule_svg.hpp — `schedule --format svg`: the plan drawn like the paper's Figure 1.
//
// One row per SM, split into one lane per resident CTA slot when CTAs per SM > 1 (CTA g sits in slot
// g mod resident; CTAs of later waves follow the earlier CTA of their slot), or, where such lanes would be too thin to
// tell apart (GPU scale), one block of SM rows per slot. x is idealised time in
// LeanTiles: every LeanTile costs the same, so the picture shows the plan's balance, not a prediction
// (`leanattn simulate` predicts). Segments are colored by request (its hue, svg.hpp's request palette),
// shaded by kv-head, and labeled when wide enough; thin rows get one label per run of a request's CTAs; host
// CTAs carry a black flag; a stream-k host merges its peers' partials in a purple block sized by the
// number of partials (arrows show where they come from on small plans); fixed-split's second launch is
// a purple band after the last wave. The HTML page (schedule_html.hpp) inlines the same picture.
#pragma once

#include <ostream>
#include <string>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

// `chosen_by`: what chose the plan, named before the headline ("auto (kernel model leanattn-h100)"); empty: the
// strategy asked for.
void write_schedule_svg(std::ostream& out, const Schedule& schedule, const ScheduleTable& table, const std::string& chosen_by = {});

// Output o = (request b, kv-head h): request b's hue, shaded by h (request_color in svg.hpp).
std::string output_color(const Problem& problem, std::int64_t output);

// The picture's heading lines, also used by the HTML page: what was planned, and on what.
std::string schedule_headline(const Schedule& schedule);  // strategy, device, grid, launches
std::string schedule_problem_line(const Schedule& schedule);  // batch, heads, head-dim, ctx, tile

}  // namespace leanattn::app

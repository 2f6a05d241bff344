// simulation_svg.hpp — `simulate --format svg|html`: the strategies' per-SM timelines, one above another.
//
// One panel per strategy, all on one time axis (µs), so a shorter makespan is a shorter panel. Rows are
// SMs (thin rows for big GPUs), colored by state with svg.hpp's shared marks, none of them a request's hue:
// dark grey = busy, purple = reduction work (partial stores, merges, the reduce kernel), grey hatching = a
// host waiting for its peers, light grey = idle (no CTA: launch gaps, tails). Every interval is drawn at its
// true duration; a reduction narrower than a pixel also gets a tick in a strip above its panel.
#pragma once

#include <ostream>

#include "simulation_report.hpp"

namespace leanattn::app {

void write_simulation_svg(std::ostream& out, const SimulationReport& report);

// A self-contained page: the text table, then the SVG inline.
void write_simulation_html(std::ostream& out, const SimulationReport& report);

}  // namespace leanattn::app

// sweep_svg.hpp — `sweep --format svg`: LeanAttention's simulated speedup curves against the varied value.
//
// Two curves, LA/FD (fixed-split / stream-k) and LA/FA2 (no-split / stream-k), a dashed line at 1×
// (above it stream-k is faster). The x axis is logarithmic (base 2) when the values span 8× or more. The
// curves can coincide (a one-split fixed-split plan is no-split's), so each has its own color, dash and
// marker, and the second is drawn thinner on top with hollow markers: both stay visible.
#pragma once

#include <ostream>

#include "sweep_report.hpp"

namespace leanattn::app {

void write_sweep_svg(std::ostream& out, const SweepReport& report);

}  // namespace leanattn::app

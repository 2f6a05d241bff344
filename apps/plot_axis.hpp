// plot_axis.hpp — "nice" tick positions for the simulator's pictures (timelines, sweep curves).
#pragma once

#include <cmath>
#include <vector>

namespace leanattn::app {

// Ticks at multiples of 1, 2 or 5 × 10^k covering [lo, hi] with about `target` intervals.
inline std::vector<double> nice_ticks(double lo, double hi, int target = 6) {
    if (!(hi > lo)) return {lo};
    const double raw = (hi - lo) / target;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * power;
        if (step >= raw) break;
    }
    std::vector<double> ticks;
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return ticks;
}

}  // namespace leanattn::app

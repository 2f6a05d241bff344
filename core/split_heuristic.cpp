#include "split_heuristic.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace leanattn {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

std::int64_t fa2_num_splits(std::int64_t bnm, std::int64_t sm_slots, std::int64_t n_blocks, std::int64_t max_splits) {
    // Single precision on purpose: FlashAttention-2 computes the efficiencies in float, and ties at the
    // 0.85 threshold must fall the same way.
    if (static_cast<float>(bnm) >= 0.8f * static_cast<float>(sm_slots)) return 1;
    const std::int64_t limit = std::min({max_splits, sm_slots, n_blocks});
    auto eligible = [&](std::int64_t s) { return s == 1 || ceil_div(n_blocks, s) != ceil_div(n_blocks, s - 1); };
    std::vector<float> efficiency(static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)), 0.0f);
    float best = 0.0f;
    for (std::int64_t s = 1; s <= limit; ++s) {
        if (!eligible(s)) continue;
        const float waves = static_cast<float>(bnm * s) / static_cast<float>(sm_slots);
        const float eff = waves / std::ceil(waves);
        efficiency[s - 1] = eff;
        best = std::max(best, eff);
    }
    for (std::int64_t s = 1; s <= limit; ++s) {
        if (eligible(s) && efficiency[s - 1] >= 0.85f * best) return s;
    }
    return 1;
}

}  // namespace leanattn

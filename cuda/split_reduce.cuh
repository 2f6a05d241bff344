// split_reduce.cuh — fixed-split's second launch: one CTA per output tile merges its splits' partials in
// split order (Flash-Decoding's combine kernel) and writes O and the LSE through their strides.
#pragma once

#include "decode_device.cuh"

namespace leanattn::cuda {

template <typename T, int D, int ROWS>
__global__ void __launch_bounds__(detail::threads) split_reduce_kernel(const DecodeParams p) {
    using namespace detail;
    constexpr int entries = ROWS * D;
    constexpr std::int64_t slot_floats = entries + 2 * ROWS;
    const PlanView plan = live_plan_view(p);
    const std::int64_t output = blockIdx.x;
    const std::int64_t contributors = plan::contributor_count(plan, output);
    if (contributors < 2) return;  // written directly by its only split (or, with no live tokens, by none)
    const std::int64_t b = output / plan.kv_heads, h = output % plan.kv_heads;
    const SegmentSpan span{b, h, 0, 0, h * ROWS, {}};  // store_output needs no token
    for (int e = threadIdx.x; e < entries; e += threads) {
        float m = -INFINITY, l = 0.0f, a = 0.0f;
        for (std::int64_t i = 0; i < contributors; ++i) {
            const float* slot = p.partials + plan::contributor(plan, output, i) * slot_floats;
            merge_state(m, l, a, slot[entries + e / D], slot[entries + ROWS + e / D], slot[e]);
        }
        store_output<T, D>(p, span, e / D, e % D, m, l, a);
    }
}

}  // namespace leanattn::cuda

// split_reduce.cuh — fixed-split's second launch: one CTA per output tile merges its splits' partials in
// split order (Flash-Decoding's combine kernel) and writes O and the LSE through their strides.
#pragma once

#include "decode_device.cuh"

namespace leanattn::cuda {

template <typename T, int D>
__global__ void __launch_bounds__(detail::threads) split_reduce_kernel(const DecodeParams p) {
    using namespace detail;
    const std::int64_t entries = static_cast<std::int64_t>(p.rows) * D;  // the slot layout's (decode_device.cuh)
    const std::int64_t slot_floats = entries + 2 * p.rows;
    const PlanView plan = live_plan_view(p);
    const std::int64_t output = blockIdx.x;
    const std::int64_t contributors = plan::contributor_count(plan, output);
    if (contributors < 2) return;  // written directly by its only split (or, with no live tokens, by none)
    const SegmentSpan span = output_span(p, output);  // store_output needs no token
    const std::int64_t own = static_cast<std::int64_t>(span.rows) * D;
    for (std::int64_t e = threadIdx.x; e < own; e += threads) {
        const int r = static_cast<int>(e / D), d = static_cast<int>(e % D);
        float m = -INFINITY, l = 0.0f, a = 0.0f;
        for (std::int64_t i = 0; i < contributors; ++i) {
            const float* slot = p.partials + plan::contributor(plan, output, i) * slot_floats;
            merge_state(m, l, a, slot[entries + r], slot[entries + p.rows + r], slot[e]);
        }
        const float value[1] = {a};
        store_output<T>(p, span, r, d, m, l, value);
    }
}

}  // namespace leanattn::cuda

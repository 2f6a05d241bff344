// split_reduce.cuh — fixed-split's second launch: one CTA per output tile merges its splits' partials in
// split order (Flash-Decoding's combine kernel) and writes O and the LSE through their strides.
//
// A thread owns one value of the tile and reads its splits' partials eight at a time, the eight loads
// independent of each other and of the merge, then merges them as a stream-k host merges its peers
// (merge_row_states: one maximum, one exponential per partial). Merged one by one, each split cost a round
// trip to L2 in a chain: a Falcon-7B (MQA) step spent most of its time here (bench/NOTES.md, v19).
#pragma once

#include "decode_device.cuh"

namespace leanattn::cuda {

namespace detail {

// Merges the `contributors` partials of `output`, the slots of CTAs first, first + 1, … (in split order).
template <typename T, int D>
__device__ __forceinline__ void split_reduce(const DecodeParams& p, std::int64_t output, std::int64_t contributors, std::int64_t first) {
    constexpr int batch = 8;
    const std::int64_t entries = static_cast<std::int64_t>(p.rows) * D;  // the slot layout's (decode_device.cuh)
    const std::int64_t slot_floats = entries + 2 * p.rows;
    if (contributors < 2) return;  // written directly by its only split (or, with no live tokens, by none)
    const SegmentSpan span = output_span(p, output);  // store_output needs no token
    const std::int64_t own = static_cast<std::int64_t>(span.rows) * D;
    const float* const splits = p.partials + first * slot_floats;  // consecutive slots
    for (std::int64_t e = threadIdx.x; e < own; e += threads) {
        const int r = static_cast<int>(e / D), d = static_cast<int>(e % D);
        RowState<1> acc;
#pragma unroll 1
        for (std::int64_t i0 = 0; i0 < contributors; i0 += batch) {
            const int count = static_cast<int>(contributors - i0 < batch ? contributors - i0 : batch);
            RowState<1> parts[batch];
#pragma unroll
            for (int b = 0; b < batch; ++b) {
                if (b >= count) continue;
                const float* slot = splits + (i0 + b) * slot_floats;
                parts[b].m = slot[entries + r];
                parts[b].l = slot[entries + p.rows + r];
                parts[b].a[0] = slot[e];
            }
            merge_row_states(acc, parts, count);
        }
        store_output<T>(p, span, r, d, acc.m, acc.l, acc.a);
    }
}

}  // namespace detail

// run(): the output's splits as the live plan (written by the prologue) counts them.
template <typename T, int D>
__global__ void __launch_bounds__(detail::threads) split_reduce_kernel(const DecodeParams p) {
    const PlanView plan = live_plan_view(p);
    const std::int64_t output = blockIdx.x;
    detail::split_reduce<T, D>(p, output, plan::contributor_count(plan, output), plan::contributor(plan, output, 0));
}

// A host-lengths step: the count the output's first split wrote into the workspace (store_split_count).
template <typename T, int D>
__global__ void __launch_bounds__(detail::threads) split_reduce_table_kernel(const DecodeParams p) {
    wait_for_kernel_ahead();  // the decode kernel's partials and counts
    const std::int64_t output = blockIdx.x;
    detail::split_reduce<T, D>(p, output, __ldcg(p.split_counts + output), output * p.plan.splits);
}

}  // namespace leanattn::cuda

// split_reduce.cuh — fixed-split's second launch: the splits' partials of each output tile merged in split order
// (Flash-Decoding's combine kernel), O and the LSE written through their strides.
//
// A thread owns one value of a tile: the CTAs of one output each take `threads` of its rows · head_dim values
// (reduce_value_blocks), so the launch has as many threads as the outputs have values. Each thread reads its
// splits' partials sixteen at a time, the loads independent of each other and of the merge, then merges them as
// a stream-k host merges its peers (merge_row_states: one maximum, one exponential per partial). The merge is a
// chain of L2 round trips, one per batch, so what sets its time is how many batches one thread waits through:
// with one CTA per output, a thread held 4-8 values of a 7-16-row tile in turn and merged 32-64 splits for each
// (40 us of a 53 us Qwen2.5-7B step on an H200, bench/NOTES.md, v20); merged one by one, each split had cost a
// round trip of its own (Falcon-7B, v19).
#pragma once

#include "decode_device.cuh"

namespace leanattn::cuda {

// CTAs per output tile of the reduce kernel: one per `threads` values of the fullest tile (rows · head_dim).
__host__ __device__ constexpr std::int64_t reduce_value_blocks(std::int64_t rows, std::int64_t head_dim) {
    return (rows * head_dim + detail::threads - 1) / detail::threads;
}

namespace detail {

// This CTA's share of its output's merge: the output and the first of its values (blockIdx.x counts outputs ×
// reduce_value_blocks).
struct ReduceShare {
    std::int64_t output, first_value;
};
template <int D>
__device__ inline ReduceShare reduce_share(const DecodeParams& p) {
    const std::int64_t blocks = reduce_value_blocks(p.rows, D);
    const std::int64_t output = blockIdx.x / blocks;
    return {output, (blockIdx.x - output * blocks) * threads};
}

// Merges the `contributors` partials of the share's output, the slots of CTAs first, first + 1, … (split order).
template <typename T, int D>
__device__ __forceinline__ void split_reduce(const DecodeParams& p, const ReduceShare& share, std::int64_t contributors, std::int64_t first) {
    constexpr int batch = 16;
    const std::int64_t entries = static_cast<std::int64_t>(p.rows) * D;  // the slot layout's (decode_device.cuh)
    const std::int64_t slot_floats = partial_slot_floats(p.rows, D);
    if (contributors < 2) return;  // written directly by its only split (or, with no live tokens, by none)
    const SegmentSpan span = output_span(p, share.output);  // store_output needs no token
    const std::int64_t e = share.first_value + threadIdx.x;
    if (e >= static_cast<std::int64_t>(span.rows) * D) return;
    const int r = static_cast<int>(e / D), d = static_cast<int>(e % D);
    const float* const splits = p.partials + first * slot_floats;  // consecutive slots
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

}  // namespace detail

// run(): the output's splits as the live plan (written by the prologue) counts them.
template <typename T, int D>
__global__ void __launch_bounds__(detail::threads) split_reduce_kernel(const DecodeParams p) {
    const PlanView plan = live_plan_view(p);
    const detail::ReduceShare share = detail::reduce_share<D>(p);
    detail::split_reduce<T, D>(p, share, plan::contributor_count(plan, share.output), plan::contributor(plan, share.output, 0));
}

// A host-lengths step: the count the output's first split wrote into the workspace (store_split_count).
template <typename T, int D>
__global__ void __launch_bounds__(detail::threads) split_reduce_table_kernel(const DecodeParams p) {
    wait_for_kernel_ahead();  // the decode kernel's partials and counts
    const detail::ReduceShare share = detail::reduce_share<D>(p);
    detail::split_reduce<T, D>(p, share, __ldcg(p.split_counts + share.output), share.output * p.plan.splits);
}

}  // namespace leanattn::cuda

// decode_params.cuh — everything one decode launch reads, as one plain struct passed by value.
//
// Tensors: core/decode_tensors.hpp (device memory). The group · q_len query rows of KV head h of request b are
// cut into row_blocks output tiles (core/problem.hpp; one, unless they exceed a tile's rows): output tile
// o = (b · kv_heads + h) · row_blocks + k holds rows [k · rows, min((k + 1) · rows, group · q_len)). Row r of the
// KV head is query head h · group + r / q_len of request b, its new token r mod q_len, which sees the first
// seqlen − q_len + (r mod q_len) + 1 tokens (causal among the new ones). The kernels are compiled for a row count
// at least `rows` (kernel_set.hpp); the rows past a tile's own are padding. Workspace sections: workspace.hpp.
#pragma once

#include <cstdint>

#include "core/decode_tensors.hpp"
#include "core/plan_view.hpp"
#include "trace_records.hpp"
#include "workspace.hpp"

namespace leanattn::cuda {

struct StepTable;

struct DecodeParams {
    PlanView plan;                // Schedule::view(), request arrays pointing into the workspace; total_tiles and
                                  // chunk are the capacity plan's: kernels take the live ones from `live`
    const LivePlan* live = nullptr;
    DecodeTensors tensors;
    std::int64_t tile = 0;        // LeanTile in tokens
    int group = 1;                // query heads per KV head
    int q_len = 1;                // new tokens per request
    int rows = 1;                 // query rows of the fullest output tile (Problem::block_rows); partial slots hold this many
    int row_blocks = 1;           // output tiles per KV head of a request (Problem::row_blocks)
    int q_len_reciprocal = 65536; // ⌈2^16 / q_len⌉: r / q_len = (r · this) >> 16 for every row r < 2^16 / q_len²
                                  // (r < max_kv_head_rows = 1024, q_len ≤ 8), a multiply instead of a division (row_place)
    float scale_log2 = 0.0f;      // softmax scale × log2(e): scores go through exp2
    float* partials = nullptr;    // (grid, partial_floats): un-scaled O, then m, then l
    std::int32_t* flags = nullptr;  // (grid) stream-k: 1 once a CTA's partial is stored; 0 again once its host read it
    std::int32_t* split_counts = nullptr;  // (outputs) fixed-split, host-lengths steps: each output's splits (workspace.hpp)
    bool fused = true;            // stream-k: hosts reduce in this launch; else every split stores a partial
    TraceBuffer trace;            // read by the traced kernels only
    const StepTable* staged_table = nullptr;  // a staged step's table, in the workspace (decode.hpp: stage_step, run_staged)
};

// Programmatic dependent launch (sm_90): run() launches the decode kernel (and fixed-split's reduce kernel)
// allowed to start before the kernel ahead of it in the stream has finished, so its CTAs are resident and
// its launch latency is spent while the prologue runs. Everything the prologue writes is read only after
// `griddepcontrol.wait`, which returns once the kernel ahead has completed and its stores are visible. On a
// launch without the attribute (older GPUs, or another caller) the wait returns at once.
__device__ inline void wait_for_kernel_ahead() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
// Lets the kernel behind this one in the stream (if launched with the attribute) start its CTAs now.
__device__ inline void allow_kernel_behind() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The plan as this run sees it: the capacity plan's view with the live total, chunk, snap and strategy (written by the
// prologue, which ran before this kernel in stream order: waited for here).
__device__ inline PlanView live_plan_view(const DecodeParams& p) {
    wait_for_kernel_ahead();
    PlanView plan = p.plan;
    plan.total_tiles = p.live->total_tiles;
    plan.chunk = p.live->chunk;
    plan.snap = p.live->snap;
    plan.strategy = p.live->strategy;
    return plan;
}

}  // namespace leanattn::cuda

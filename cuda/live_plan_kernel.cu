#include "live_plan_kernel.hpp"

#include <cmath>
#include <cstdint>

#include "core/live_plan.hpp"
#include "core/walker.hpp"
#include "decode_params.cuh"
#include "device_buffer.cuh"

namespace leanattn::cuda {

namespace {

// 256 threads: small enough (registers, shared memory) to share an SM with a CTA of the decode kernel, which
// becomes resident while this kernel runs (programmatic dependent launch). With 1024 threads the decode CTA
// of that SM could not start until this kernel ended, and stream-k plans of one CTA per SM finished ~2 us late.
constexpr int prologue_threads = 256;
constexpr int prologue_warps = prologue_threads / 32;

struct LivePlanArgs {
    PlanView plan;  // the capacity plan's view (its arrays unused)
    KvCacheView kv;
    const std::int32_t* seqlens;
    std::int64_t batch, outputs_per_request, tile;
    bool fixed_split;
    std::int64_t splits;
    LivePlan* live;
    std::int64_t* request_tiles;   // (batch)
    std::int64_t* request_offset;  // (batch + 1)
    std::int32_t* flags;           // (flag_count)
    std::int64_t flag_count;
    HeadTensor out;                // fp16 or bf16: zero is all bits clear in either
    LseTensor lse;                 // data null: none
    std::int64_t q_len, q_heads, head_dim;
};

// The maximum of `value` over the block, returned to thread 0 (the others get a partial one): a shuffle
// reduction per warp, then thread 0 over the warps' results in `warp_value`, which may be rewritten after the
// next barrier.
__device__ std::int64_t max_for_thread0(std::int64_t value, std::int64_t* warp_value) {
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
        const std::int64_t y = __shfl_xor_sync(0xffffffffu, value, d);
        value = y > value ? y : value;
    }
    if (threadIdx.x % 32 == 0) warp_value[threadIdx.x / 32] = value;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 0; w < prologue_warps; ++w) value = warp_value[w] > value ? warp_value[w] : value;
    }
    return value;
}

// The rows of the requests of [first, first + prologue_threads) that hold no token (a padded batch's empty slots),
// which no CTA of the decode kernel visits: out 0 and lse −∞, as the kernel writes a row that sees no token (a
// request shorter than q_len), not whatever the buffers held. The whole block writes each such request's rows.
__device__ void clear_empty_requests(const LivePlanArgs& a, std::int64_t first) {
    const std::int64_t last = first + prologue_threads < a.batch ? first + prologue_threads : a.batch;
    const std::int64_t rows = a.q_len * a.q_heads;
    for (std::int64_t b = first; b < last; ++b) {
        if (tensors::live_tokens(a.kv, a.seqlens, b) != 0) continue;  // the same verdict in every thread
        for (std::int64_t i = threadIdx.x; i < rows * a.head_dim; i += prologue_threads) {
            const std::int64_t row = i / a.head_dim, token = row / a.q_heads, head = row % a.q_heads;
            static_cast<std::uint16_t*>(a.out.data)[tensors::row_offset(a.out, b, token, head) + i % a.head_dim] = 0;
        }
        if (a.lse.data == nullptr) continue;
        for (std::int64_t row = threadIdx.x; row < rows; row += prologue_threads) {
            const std::int64_t token = row / a.q_heads, head = row % a.q_heads;
            a.lse.data[tensors::lse_offset(a.lse, b, token, head)] = -INFINITY;
        }
    }
}

// Requests go through in chunks of prologue_threads, one per thread. Within a chunk, request_offset is a block-wide
// inclusive scan of outputs_per_request × tiles: a shuffle scan inside each warp, then each thread adds the totals of
// the warps before its own (32 values in shared memory); `carry` holds the offsets of the chunks before.
// The sums are exact integers, so the order of additions cannot change a result: the host's sequential
// live_view gives the very same arrays.
__global__ void __launch_bounds__(prologue_threads) live_plan_kernel(const LivePlanArgs a) {
    __shared__ std::int64_t warp_value[prologue_warps];
    allow_kernel_behind();  // the decode kernel's CTAs may become resident now; they wait for this kernel's end
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    std::int64_t carry = 0, longest = 0;
    for (std::int64_t first = 0; first < a.batch; first += prologue_threads) {
        const std::int64_t b = first + threadIdx.x;
        const std::int64_t tiles = b < a.batch ? plan::tiles_for(tensors::live_tokens(a.kv, a.seqlens, b), a.tile) : 0;
        longest = tiles > longest ? tiles : longest;
        std::int64_t x = a.outputs_per_request * tiles;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const std::int64_t y = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= d) x += y;
        }
        if (lane == 31) warp_value[warp] = x;
        __syncthreads();
        std::int64_t before = 0, chunk_total = 0;
        for (int w = 0; w < prologue_warps; ++w) {
            before += w < warp ? warp_value[w] : 0;
            chunk_total += warp_value[w];
        }
        if (b < a.batch) {
            a.request_tiles[b] = tiles;
            a.request_offset[b + 1] = carry + before + x;
        }
        carry += chunk_total;
        __syncthreads();  // warp_value is rewritten by the next chunk (and by the maximum below)
        if (__syncthreads_or(b < a.batch && tiles == 0)) clear_empty_requests(a, first);
    }
    longest = max_for_thread0(longest, warp_value);
    if (threadIdx.x == 0) {
        a.request_offset[0] = 0;
        a.live->total_tiles = carry;
        a.live->chunk = a.fixed_split ? plan::fixed_split_chunk(longest, a.splits) : a.plan.chunk;
        a.live->snap = a.plan.snap;
    }
    // Every request at its capacity (the plan's own arrays) and one output per CTA there: the step walks as no-split.
    const bool no_split_at_capacity = a.plan.strategy == Strategy::stream_k && carry == a.plan.total_tiles && a.plan.capacity_one_output_per_cta;
    if (threadIdx.x == 0) a.live->strategy = no_split_at_capacity ? Strategy::no_split : a.plan.strategy;
    // Such a step never touches a flag, so it leaves them as they are: a step that reads them clears them first.
    if (!no_split_at_capacity) {
        for (std::int64_t i = threadIdx.x; i < a.flag_count; i += prologue_threads) a.flags[i] = 0;
    }
    // stream-k below its capacity: whether this step keeps the plan's snap (core's plan::keeps_snap) and whether
    // its CTAs each hold one whole output (plan::one_output_per_cta), as live_view decides both on the host.
    // The threads share the CTAs' starts, then a maximum of the loads and an OR of the mismatches.
    if (a.plan.strategy != Strategy::stream_k || carry == a.plan.total_tiles) return;
    const bool check_snap = a.plan.snap > 0 && a.plan.capacity_max_load > 0;
    const bool check_one_per_cta = a.plan.grid == a.batch * a.outputs_per_request;
    if (!check_snap && !check_one_per_cta) return;
    __syncthreads();  // the arrays written above (global memory) are visible to the whole block after it
    PlanView live = a.plan;
    live.total_tiles = carry;
    live.request_tiles = a.request_tiles;
    live.request_offset = a.request_offset;
    // Each CTA start is computed once: a thread takes the next CTA's start from the next lane (the warp's last
    // lane computes it). Every thread of a warp runs the same number of turns (the bound is rounded up).
    std::int64_t most = 0;
    int mismatch = 0;
    const std::int64_t turns = (live.grid + prologue_threads - 1) / prologue_threads;
    for (std::int64_t k = 0; k < turns; ++k) {
        const std::int64_t g = k * prologue_threads + threadIdx.x;
        const std::int64_t start = g <= live.grid ? plan::stream_k_start(live, g) : 0;
        std::int64_t next = __shfl_down_sync(0xffffffffu, start, 1);
        if (lane == 31 && g < live.grid) next = plan::stream_k_start(live, g + 1);
        if (g < live.grid) {
            most = next - start > most ? next - start : most;
            if (check_one_per_cta && start != plan::output_offset(live, g)) mismatch = 1;
        }
    }
    most = max_for_thread0(most, warp_value);
    const bool any_mismatch = __syncthreads_or(mismatch);
    if (threadIdx.x != 0) return;
    const bool kept = !check_snap || plan::keeps_snap(live, most);
    if (!kept) a.live->snap = 0;
    // A dropped snap means some start moved off a boundary (else the loads, and so the verdict, would be the
    // paper plan's): one output per CTA is judged on the snapped starts only when they stand.
    if (check_one_per_cta && kept && !any_mismatch) a.live->strategy = Strategy::no_split;
}

}  // namespace

void enqueue_live_plan(const PlanView& view, const Schedule& plan, const DecodeTensors& t, void* workspace, const WorkspaceLayout& w,
                       cudaStream_t stream) {
    auto* base = static_cast<unsigned char*>(workspace);
    LivePlanArgs a;
    a.kv = t.kv;
    a.seqlens = t.seqlens;
    a.batch = plan.problem.batch;
    a.outputs_per_request = plan.problem.outputs_per_request();
    a.tile = plan.problem.tile;
    a.fixed_split = plan.strategy == Strategy::fixed_split;
    a.splits = plan.splits;
    a.plan = view;
    a.live = reinterpret_cast<LivePlan*>(base + w.live);
    a.request_tiles = reinterpret_cast<std::int64_t*>(base + w.request_tiles);
    a.request_offset = reinterpret_cast<std::int64_t*>(base + w.request_offset);
    a.flags = reinterpret_cast<std::int32_t*>(base + w.flags);
    a.flag_count = w.flag_count;
    a.out = t.o;
    a.lse = t.lse;
    a.q_len = plan.problem.q_len;
    a.q_heads = plan.problem.q_heads;
    a.head_dim = plan.problem.head_dim;
    live_plan_kernel<<<1, prologue_threads, 0, stream>>>(a);
    check(cudaGetLastError(), "launch the live-plan prologue");
}

}  // namespace leanattn::cuda

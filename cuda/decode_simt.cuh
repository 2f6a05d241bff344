// decode_simt.cuh — the decode kernel on CUDA cores, for one query row per output tile (MHA with q_len 1; more
// rows go to decode_mma.cuh, where they share tensor-core work; the template takes any ROWS): every CTA walks
// its plan segments with the core's CtaWalker and runs Algorithm 1 (online softmax over LeanTiles) on
// each; decode_device.cuh finishes each segment (Algorithm 2's reduction).
//
// Work split inside a CTA (8 warps): a segment's tokens are cut into blocks of STEPS × TOKENS_PER_STEP
// tokens dealt round-robin to the warps. In a warp, D/8 lanes share one token (each holds 8 dims, one
// 16-byte slot), so one warp-wide copy moves 512 contiguous bytes of K (or V). Blocks stream into a
// per-warp cp.async pipeline in shared memory, so the bytes in flight cost no registers. Each warp keeps
// its own running (m, l, acc); the 8 warp states merge at the end of a segment, so no block-wide
// barrier is paid per LeanTile. Shapes: core/decode_tensors.hpp; Trace: cta_trace.cuh.
#pragma once

#include "decode_device.cuh"

namespace leanattn::cuda {

namespace detail {

// The kernel's body, for either source of segments (Work: LiveWork or TableWork, decode_device.cuh).
template <typename T, int D, int ROWS, bool Trace, typename Work>
__device__ __forceinline__ void decode_simt(const DecodeParams& p, Work work, CtaTrace<Trace>& trace) {
    static_assert(D == 64 || D == 128 || D == 256, "head_dim 64, 128 or 256 (96 goes to decode_mma.cuh: 12 lanes per token do not tile a warp)");
    constexpr int lanes_per_token = D / 8;
    constexpr int tokens_per_step = 32 / lanes_per_token;
    constexpr int steps = 8;  // tokens per lane per block: their scores live in registers
    constexpr int block_tokens = steps * tokens_per_step;
    constexpr int stage_bytes = 2 * steps * 32 * 16;  // K and V of one block
    constexpr int stages = stages_for(stage_bytes);
    static_assert(stages >= 3, "at least two blocks in flight while one is computed");

    extern __shared__ uint4 smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int warp_slots = warp_smem_bytes / 16;
    const std::uint32_t warp_stages = shared_address(smem + warp * warp_slots);  // StageCursor says why not a pointer
    auto state_of = [&](int w) { return reinterpret_cast<WarpState<ROWS, D>*>(smem + w * warp_slots); };
    const SharedStates<ROWS, D, 1, 1> states{smem, warp_slots};  // one state per warp
    static_assert(sizeof(WarpState<ROWS, D>) <= warp_smem_bytes, "a warp's state fits its stage memory");
    const int chunk = lane % lanes_per_token;  // which 8 dims this lane holds
    const int sub = lane / lanes_per_token;    // which token of a step
    const std::int64_t cta = blockIdx.x;
    const T* Q = static_cast<const T*>(p.tensors.q.data);
    const T* K = static_cast<const T*>(p.tensors.kv.k) + chunk * 8;  // this lane's 8 dims of any token row
    const T* V = static_cast<const T*>(p.tensors.kv.v) + chunk * 8;
    for (; work.valid(); work.advance()) {
        trace.segment_begin();
        const Segment seg = work.segment();
        const SegmentSpan span = work.span(p);
        const std::int64_t tok_begin = span.tok_begin, tok_end = span.tok_end;

        float q[ROWS][8];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            to_float8(*reinterpret_cast<const uint4*>(Q + query_row_offset(p, p.tensors.q, span, r) + chunk * 8), Q, q[r]);
#pragma unroll
            for (int i = 0; i < 8; ++i) q[r][i] *= p.scale_log2;
        }
        float m[ROWS], l[ROWS], acc[ROWS][8];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            m[r] = -INFINITY;
            l[r] = 0.0f;
#pragma unroll
            for (int i = 0; i < 8; ++i) acc[r][i] = 0.0f;
        }

        // Software pipeline, per warp: block i of this warp's blocks streams into stage i % stages with
        // cp.async while the warp computes on older stages, so (stages − 1) blocks of K and V are in flight
        // without holding registers. Each lane reads back only the 16-byte slots it copied itself, so a
        // lane's own wait_group is the only synchronisation needed.
        const std::int64_t first = tok_begin + warp * block_tokens;
        const std::int64_t blocks = first < tok_end ? (tok_end - first + warps * block_tokens - 1) / (warps * block_tokens) : 0;
        StageCursor<stages, stage_bytes> issue_stage(warp_stages), read_stage(warp_stages);
        auto issue = [&](std::int64_t i, std::uint32_t ks) {
            if (i < blocks) {
                const std::uint32_t vs = ks + steps * 32 * 16;
                const std::int64_t start = first + i * warps * block_tokens;
                with_token_offsets(span, [&](auto offset_of) {
#pragma unroll
                    for (int s = 0; s < steps; ++s) {
                        const std::int64_t t = start + s * tokens_per_step + sub;
                        const bool live = t < tok_end;  // a dead token's copy reads nothing: any valid address will do
                        const std::int64_t at = offset_of(live ? t : tok_begin);
                        cp_async_16(ks + 16u * (s * 32 + lane), K + at, live);
                        cp_async_16(vs + 16u * (s * 32 + lane), V + at, live);
                    }
                });
            }
            cp_async_commit();  // an empty group past the end keeps the wait count uniform
        };
        // The pipeline's fill is the loop's first (stages − 1) turns: issue() has one call site (decode_mma.cuh).
        std::int64_t contributors = 1;
        for (std::int64_t i = 1 - stages; i < blocks; ++i) {
            issue(i + stages - 1, issue_stage.at);
            issue_stage.advance();
            if (i < 0) {
                // The fill's last turn: the peers a host waits for, found while its first copies fly.
                if (i == -1) contributors = work.contributors(p, cta);
                continue;
            }
            cp_async_wait<stages - 1>();
            const std::uint32_t ks = read_stage.at, vs = ks + steps * 32 * 16;
            read_stage.advance();
            const std::int64_t start = first + i * warps * block_tokens;
            float score[steps][ROWS];
#pragma unroll
            for (int s = 0; s < steps; ++s) {
                float kf[8];
                to_float8(load_shared_16(ks + 16u * (s * 32 + lane)), K, kf);
                const bool live = start + s * tokens_per_step + sub < tok_end;
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    float dot = 0.0f;
#pragma unroll
                    for (int k = 0; k < 8; ++k) dot = fmaf(q[r][k], kf[k], dot);
#pragma unroll
                    for (int off = lanes_per_token / 2; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
                    score[s][r] = live ? dot : -INFINITY;
                }
            }
            float m_new[ROWS], psum[ROWS];
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                float mx = score[0][r];
#pragma unroll
                for (int s = 1; s < steps; ++s) mx = max_nan(mx, score[s][r]);
#pragma unroll
                for (int off = lanes_per_token; off < 32; off *= 2) mx = max_nan(mx, __shfl_xor_sync(0xffffffffu, mx, off));
                m_new[r] = max_nan(m[r], mx);
                const float correction = m_new[r] == -INFINITY ? 1.0f : exp2_or_zero(m[r] - m_new[r]);
                l[r] *= correction;
#pragma unroll
                for (int k = 0; k < 8; ++k) acc[r][k] *= correction;
                psum[r] = 0.0f;
            }
#pragma unroll
            for (int s = 0; s < steps; ++s) {
                float vf[8];
                to_float8(load_shared_16(vs + 16u * (s * 32 + lane)), V, vf);
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    const float pr = m_new[r] == -INFINITY ? 0.0f : exp2_or_zero(score[s][r] - m_new[r]);
                    psum[r] += pr;
#pragma unroll
                    for (int k = 0; k < 8; ++k) acc[r][k] = fmaf(pr, vf[k], acc[r][k]);
                }
            }
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                // Lanes of one token hold the same p: sum across tokens (subs) only.
#pragma unroll
                for (int off = lanes_per_token; off < 32; off *= 2) psum[r] += __shfl_xor_sync(0xffffffffu, psum[r], off);
                l[r] += psum[r];
                m[r] = m_new[r];
            }
        }
        cp_async_wait<0>();  // nothing of this warp in flight any more: its stage memory can hold its state
        __syncwarp();

        // Warp state → shared memory: the subs of a warp share m, so their accumulators simply add.
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
#pragma unroll
            for (int i = 0; i < 8; ++i) {
#pragma unroll
                for (int off = lanes_per_token; off < 32; off *= 2) acc[r][i] += __shfl_xor_sync(0xffffffffu, acc[r][i], off);
            }
            if (sub == 0) {
#pragma unroll
                for (int i = 0; i < 8; ++i) state_of(warp)->acc[r][chunk * 8 + i] = acc[r][i];
            }
            if (lane == 0) {
                state_of(warp)->m[r] = m[r];
                state_of(warp)->l[r] = l[r];
            }
        }
        __syncthreads();
        trace.stream_end();

        finish_segment<T, D, ROWS, Trace>(p, seg, span, cta, contributors, work.merge_share(), states, trace);
        __syncthreads();  // shared state is reused by the next segment
        trace.segment_end();
    }
    trace.cta_end();
}

}  // namespace detail

// Launch bounds (threads, 1): the 192 KB of shared memory allow one CTA per SM whatever the registers, so
// ptxas may use all it needs (left to aim at more CTAs per SM, it capped the registers and spilled).
// run(): segments from the live plan the prologue derives from the device-side lengths.
template <typename T, int D, int ROWS, bool Trace>
__global__ void __launch_bounds__(detail::threads, 1) decode_simt_kernel(const DecodeParams p) {
    extern __shared__ uint4 smem[];
    detail::CtaTrace<Trace> trace(p, blockIdx.x);  // before the wait: a CTA's start is when it became resident
    detail::decode_simt<T, D, ROWS>(p, detail::LiveWork{detail::begin_cta(p, smem, trace)}, trace);
}

// A host-lengths step: segments from the host's table in the launch's parameters (step_table.hpp).
template <typename T, int D, int ROWS, bool Trace>
__global__ void __launch_bounds__(detail::threads, 1) decode_simt_table_kernel(const DecodeParams p, const __grid_constant__ StepTable step) {
    detail::CtaTrace<Trace> trace(p, blockIdx.x);
    trace.plan_waited();  // nothing to wait for or stage: the plan's marks are the start
    trace.plan_ready();
    allow_kernel_behind();  // fixed-split's reduce kernel may become resident
    const StepTable& table = step;
    const int empty_requests = table.empty_requests;  // read beside the table's first entries, used after the work
    const detail::TableWork work(table, static_cast<int>(blockIdx.x));
    detail::store_split_count(p, work);
    detail::decode_simt<T, D, ROWS>(p, work, trace);
    if (empty_requests > 0) detail::clear_empty_requests(p, table, empty_requests, D);  // out of the work's way
}

// A staged step: the table copied into the workspace before the launch (decode_mma.cuh's decode_mma_staged_kernel says why).
template <typename T, int D, int ROWS>
__global__ void __launch_bounds__(detail::threads, 1) decode_simt_staged_kernel(const DecodeParams p) {
    detail::CtaTrace<false> trace(p, blockIdx.x);
    allow_kernel_behind();  // fixed-split's reduce kernel may become resident
    const StepTable& table = *p.staged_table;
    const int empty_requests = table.empty_requests;  // read beside the table's first entries, used after the work
    const detail::TableWork work(table, static_cast<int>(blockIdx.x));
    detail::store_split_count(p, work);
    detail::decode_simt<T, D, ROWS>(p, work, trace);
    if (empty_requests > 0) detail::clear_empty_requests(p, table, empty_requests, D);  // out of the work's way
}

}  // namespace leanattn::cuda

// decode_device.cuh — what both decode kernels (decode_simt.cuh, decode_mma.cuh) share on the device:
// dtype conversion, the cp.async pipeline, where a segment's tokens and rows live, the peers' flags, the
// softmax re-scaling operator, and the end of a segment (merge the 8 warps, then store a partial, or wait
// for peers and reduce, or write O).
//
// Tensor shapes: core/decode_tensors.hpp; launch parameters: decode_params.cuh.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/walker.hpp"
#include "cta_trace.cuh"
#include "decode_params.cuh"

namespace leanattn::cuda {

namespace detail {

constexpr int warps = 8;
constexpr int threads = warps * 32;

__device__ inline void to_float8(const uint4& raw, const __half*, float out[8]) {
    const __half2* h = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(h[i]);
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
    }
}

__device__ inline void to_float8(const uint4& raw, const __nv_bfloat16*, float out[8]) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __bfloat1622float2(h[i]);
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
    }
}

__device__ inline void from_float(float x, __half* out) { *out = __float2half_rn(x); }
__device__ inline void from_float(float x, __nv_bfloat16* out) { *out = __float2bfloat16_rn(x); }

// Peers' flags: release by the writer after its partial is stored, acquire by the host before it reads.
constexpr std::int32_t flag_set = 1;
__device__ inline void store_release(std::int32_t* flag, std::int32_t value) {
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ inline std::int32_t load_acquire(const std::int32_t* flag) {
    std::int32_t value;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
    return value;
}

__device__ inline float exp2_or_zero(float x) { return x == -INFINITY ? 0.0f : exp2f(x); }

// Merge (m2, l2, a2) into (m, l, a): the softmax re-scaling operator (associative; the paper's proof).
__device__ inline void merge_state(float& m, float& l, float& a, float m2, float l2, float a2) {
    const float mn = fmaxf(m, m2);
    if (mn == -INFINITY) return;
    const float s1 = exp2_or_zero(m - mn), s2 = exp2_or_zero(m2 - mn);
    l = l * s1 + l2 * s2;
    a = a * s1 + a2 * s2;
    m = mn;
}

// 16-byte global → shared copy that bypasses registers and L1; `live == false` writes zeros instead
// (a token past the end of the context: its p is 0, and 0 · garbage could be NaN, 0 · 0 is not).
__device__ inline void cp_async_16(uint4* smem, const void* gmem, bool live) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(gmem), "r"(live ? 16 : 0) : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

// Where one segment's data lives: request b, KV head h, its tokens [tok_begin, tok_end) (the last LeanTile
// may be partial; the live plan only hands out LeanTiles that hold tokens, so the range is never empty),
// and the first of its ROWS query heads.
struct SegmentSpan {
    std::int64_t b, h, tok_begin, tok_end, head0;
};
template <int ROWS>
__device__ inline SegmentSpan segment_span(const DecodeParams& p, const Segment& seg) {
    const std::int64_t kv_heads = p.plan.kv_heads;
    const std::int64_t b = seg.output / kv_heads, h = seg.output % kv_heads;
    const std::int64_t tokens = tensors::live_tokens(p.tensors.kv, p.tensors.seqlens, b);
    return {b, h, seg.begin * p.tile, min(seg.end * p.tile, tokens), h * ROWS};
}

// The one place a kernel finds a K/V token: the element offset of token t of the segment's (request,
// KV head) in K and in V (same strides), by core's kv_offset, the very function the CPU executor and the
// float64 reference use. Computed per token for every layout (a paged cache reads its block table here);
// hoisting the per-request part is left to a later kernel.
__device__ inline std::int64_t kv_token_offset(const DecodeParams& p, const SegmentSpan& span, std::int64_t t) {
    return tensors::kv_offset(p.tensors.kv, span.b, span.h, t);
}

// Element offset of query row r of the segment's output tile in q (and, with out's strides, in out).
__device__ inline std::int64_t query_row_offset(const HeadTensor& t, const SegmentSpan& span, std::int64_t r) {
    return tensors::row_offset(t, span.b, 0, span.head0 + r);
}

// A warp's end-of-segment state, written over its own (then idle) stage memory.
template <int ROWS, int D>
struct WarpState {
    float m[ROWS];
    float l[ROWS];
    float acc[ROWS][D];
};

// Shared memory per warp for its cp.async stages (and, at the end of a segment, its WarpState): 24 KB,
// so that (stages − 1) stages, ≈ 16 KB per warp and 128 KB per SM, are in flight: enough bytes to
// cover HBM latency at full bandwidth (Little's law: ~3 TB/s × ~1 µs over 132 SMs ≈ 23 KB per SM at
// the very least). 8 warps × 24 KB = 192 KB: one CTA per SM.
constexpr int warp_smem_bytes = 24576;

// After the warps' memory, the plan's per-request arrays (request_tiles, then request_offset) for batches
// up to this size: the walker's lookups (binary searches over requests, a CTA's start under the aligned rule,
// a host's count of peers) are chains of dependent loads, ~30 cycles each from shared memory instead of an L2
// round trip (~1 µs when every SM is streaming). Larger batches read the arrays from global memory.
constexpr int staged_requests = 1024;
constexpr int staged_plan_bytes = (2 * staged_requests + 1) * 8;
constexpr int shared_bytes() { return warps * warp_smem_bytes + staged_plan_bytes; }

// Copies the plan's per-request arrays into `staged` (after the warps' memory) and points `plan` at them,
// when the batch fits; ends with a barrier, as the walker reads them next.
__device__ inline void stage_plan_arrays(PlanView& plan, std::int64_t* staged) {
    if (plan.batch <= staged_requests) {
        for (std::int64_t i = threadIdx.x; i < plan.batch; i += threads) staged[i] = plan.request_tiles[i];
        for (std::int64_t i = threadIdx.x; i <= plan.batch; i += threads) staged[staged_requests + i] = plan.request_offset[i];
        plan.request_tiles = staged;
        plan.request_offset = staged + staged_requests;
    }
    __syncthreads();
}

__host__ __device__ constexpr int stages_for(int stage_bytes) { return warp_smem_bytes / stage_bytes; }

// Row r's softmax result: O = a / l into out, and the natural-log LSE m·ln 2 + ln l (m is in log2 units)
// into softmax_lse when the caller asked for it. The LSE of a row is written by the thread holding d = 0.
template <typename T, int D>
__device__ inline void store_output(const DecodeParams& p, const SegmentSpan& span, int r, int d, float m, float l, float a) {
    T* O = static_cast<T*>(p.tensors.o.data);
    from_float(a / l, O + query_row_offset(p.tensors.o, span, r) + d);
    const LseTensor& lse = p.tensors.lse;
    if (d == 0 && lse.data != nullptr) lse.data[tensors::lse_offset(lse, span.b, 0, span.head0 + r)] = m * 0.69314718055994531f + logf(l);
}

// The end of a segment, once every warp has written its WarpState into its stage memory and the CTA
// has passed a barrier: merge the warps in warp order; then, by the segment's role in the plan,
// store a partial and release the flag, or (host) acquire each peer's flag in plan order and merge its
// partial, and write O and the LSE. The reduction order is fixed by the plan: bitwise reproducible.
template <typename T, int D, int ROWS, bool Trace, typename StateOf>
__device__ void finish_segment(const DecodeParams& p, const PlanView& plan, const Segment& seg, const SegmentSpan& span, std::int64_t cta,
                               StateOf state_of, CtaTrace<Trace>& trace) {
    constexpr int entries = ROWS * D;  // output values of one output tile
    constexpr int per_thread = (entries + threads - 1) / threads;
    constexpr std::int64_t slot_floats = entries + 2 * ROWS;  // = partial_floats() with q_len 1
    // Merge the warps in warp order (fixed order: bitwise reproducible).
    float fm[per_thread], fl[per_thread], fa[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
        const int e = threadIdx.x + j * threads;
        fm[j] = -INFINITY, fl[j] = 0.0f, fa[j] = 0.0f;
        if (e >= entries) continue;
        const int r = e / D, d = e % D;
        // Every warp's values first, then the merges: the loads do not wait on each other's merges.
        float wm[warps], wl[warps], wa[warps];
#pragma unroll
        for (int w = 0; w < warps; ++w) wm[w] = state_of(w)->m[r], wl[w] = state_of(w)->l[r], wa[w] = state_of(w)->acc[r][d];
#pragma unroll
        for (int w = 0; w < warps; ++w) merge_state(fm[j], fl[j], fa[j], wm[w], wl[w], wa[w]);
    }

    const bool split = plan::segment_is_split(seg);
    float* const slot = p.partials + cta * slot_floats;
    if (split && (!seg.host || !p.fused)) {
        // A partial for someone else to reduce: un-scaled O, m, l.
#pragma unroll
        for (int j = 0; j < per_thread; ++j) {
            const int e = threadIdx.x + j * threads;
            if (e >= entries) continue;
            slot[e] = fa[j];
            if (e % D == 0) {
                slot[entries + e / D] = fm[j];
                slot[entries + ROWS + e / D] = fl[j];
            }
        }
        if (p.fused) {
            // Then the flag. The barrier makes every thread's stores of the partial precede thread 0's
            // gpu-scope fence (fences are cumulative over what the barrier ordered before them), and the fence
            // precedes its release store: a host that acquires the 1 sees the whole partial. The flag was 0
            // when this launch began: the prologue cleared it, and stream order puts the prologue after the
            // previous run's kernels and before this one. A CTA stores at most one partial per run (only its
            // first segment can be a non-host one), so a flag goes 0 → 1 once and a waiting host can never see
            // a 1 left from another run: no epoch, and a replayed CUDA graph (whose kernel parameters never
            // change) stays correct.
            __syncthreads();
            if (threadIdx.x == 0) {
                __threadfence();
                store_release(p.flags + cta, flag_set);
            }
        }
        // fixed-split: the reduce kernel reads the partials in a later launch (kernel boundary = ordering).
    } else {
        if (split) {
            // Host: this CTA, whose peers are the next CTAs. Acquire every peer's flag at once (thread i
            // waits on peer i), one barrier, then merge the partials in plan order. Waiting peer by peer
            // would put a flag round trip and a load round trip per peer on the critical path.
            const std::int64_t contributors = plan::host_contributors(plan, cta, seg);
            trace.wait_begin();
            for (std::int64_t i = 1 + threadIdx.x; i < contributors; i += threads) {
                while (load_acquire(p.flags + cta + i) != flag_set) __nanosleep(32);
            }
            __syncthreads();
            trace.wait_end();
            // Peers in groups of `batch`: every load of a group is issued before the first merge, so a group
            // costs one L2 round trip instead of one per peer (measured on the H100: ~0.7 µs a peer, serialised).
            // Merged in plan order, and a missing peer of the last group is the empty state (−inf, 0, 0), which
            // merges as an exact identity: the bits are those of the peer-by-peer loop.
            constexpr int batch = per_thread >= 4 ? 4 : 8;
            for (std::int64_t i0 = 1; i0 < contributors; i0 += batch) {
                float pm[batch][per_thread], pl[batch][per_thread], pa[batch][per_thread];
#pragma unroll
                for (int b = 0; b < batch; ++b) {
                    // Read from L2 (ld.cg): L1 is not coherent with the peers' stores.
                    const bool live = i0 + b < contributors;
                    const float* other = p.partials + (live ? cta + i0 + b : cta) * slot_floats;
#pragma unroll
                    for (int j = 0; j < per_thread; ++j) {
                        const int e = threadIdx.x + j * threads;
                        const bool load = live && e < entries;
                        pm[b][j] = load ? __ldcg(other + entries + e / D) : -INFINITY;
                        pl[b][j] = load ? __ldcg(other + entries + ROWS + e / D) : 0.0f;
                        pa[b][j] = load ? __ldcg(other + e) : 0.0f;
                    }
                }
#pragma unroll
                for (int b = 0; b < batch; ++b) {
#pragma unroll
                    for (int j = 0; j < per_thread; ++j) merge_state(fm[j], fl[j], fa[j], pm[b][j], pl[b][j], pa[b][j]);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < per_thread; ++j) {
            const int e = threadIdx.x + j * threads;
            if (e >= entries) continue;
            store_output<T, D>(p, span, e / D, e % D, fm[j], fl[j], fa[j]);
        }
    }
}

}  // namespace detail

}  // namespace leanattn::cuda

// decode_device.cuh — what both decode kernels (decode_simt.cuh, decode_mma.cuh) share on the device:
// dtype conversion, the cp.async pipeline, the peers' flags, the softmax re-scaling operator, and the
// end of a segment (merge the 8 warps, then store a partial, or wait for peers and reduce, or write O).
//
// Tensor shapes: decode_params.cuh.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/walker.hpp"
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
__device__ inline void store_release(int* flag, int value) {
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ inline int load_acquire(const int* flag) {
    int value;
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

// Where one segment's data lives: its tokens [tok_begin, tok_end) of request b (the last LeanTile may be
// partial), the first of its ROWS query rows in Q and O, and the element offset of its (request, kv-head)
// slice of K and V.
struct SegmentSpan {
    std::int64_t tok_begin, tok_end, out_row0, kv_offset;
};
template <int D, int ROWS>
__device__ inline SegmentSpan segment_span(const DecodeParams& p, const Segment& seg) {
    const std::int64_t kv_heads = p.plan.kv_heads;
    const std::int64_t b = seg.output / kv_heads;
    return {seg.begin * p.tile, min(seg.end * p.tile, p.ctx[b]), seg.output * ROWS, seg.output * p.max_ctx * D};
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
constexpr int shared_bytes() { return warps * warp_smem_bytes; }

__host__ __device__ constexpr int stages_for(int stage_bytes) { return warp_smem_bytes / stage_bytes; }

// The end of a segment, once every warp has written its WarpState into its stage memory and the CTA
// has passed a barrier: merge the warps in warp order; then, by the segment's role in the plan,
// store a partial and release the flag, or (host) acquire each peer's flag in plan order and merge its
// partial, and write O and the LSE. The reduction order is fixed by the plan: bitwise reproducible.
template <typename T, int D, int ROWS, typename StateOf>
__device__ void finish_segment(const DecodeParams& p, const Segment& seg, std::int64_t cta, std::int64_t out_row0, StateOf state_of) {
    constexpr int entries = ROWS * D;  // output values of one output tile
    constexpr int per_thread = (entries + threads - 1) / threads;
    T* O = static_cast<T*>(p.o);
    // Merge the warps in warp order (fixed order: bitwise reproducible).
    float fm[per_thread], fl[per_thread], fa[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
        const int e = threadIdx.x + j * threads;
        fm[j] = -INFINITY, fl[j] = 0.0f, fa[j] = 0.0f;
        if (e >= entries) continue;
        const int r = e / D, d = e % D;
        for (int w = 0; w < warps; ++w) merge_state(fm[j], fl[j], fa[j], state_of(w)->m[r], state_of(w)->l[r], state_of(w)->acc[r][d]);
    }

    const std::int64_t peers = plan::contributor_count(p.plan, seg.output);
    float* const slot = p.partials + cta * (entries + 2 * ROWS);
    if (peers > 1 && (!seg.host || !p.fused)) {
        // A partial for someone else to reduce: un-scaled O, m, l; then the flag (release).
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
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) store_release(p.flags + cta, p.epoch);
    } else {
        if (peers > 1) {
            // Host: acquire every peer's flag at once (thread i waits on peer i), one barrier, then merge
            // the partials in plan order. Waiting peer by peer would put a flag round trip and a load
            // round trip per peer on the critical path: with 16 peers, microseconds.
            for (std::int64_t i = 1 + threadIdx.x; i < peers; i += threads) {
                const int* flag = p.flags + plan::contributor(p.plan, seg.output, i);
                while (load_acquire(flag) != p.epoch) __nanosleep(32);
            }
            __syncthreads();
#pragma unroll 4
            for (std::int64_t i = 1; i < peers; ++i) {
                // Read from L2 (ld.cg): L1 is not coherent with the peers' stores.
                const float* other = p.partials + plan::contributor(p.plan, seg.output, i) * (entries + 2 * ROWS);
#pragma unroll
                for (int j = 0; j < per_thread; ++j) {
                    const int e = threadIdx.x + j * threads;
                    if (e >= entries) continue;
                    merge_state(fm[j], fl[j], fa[j], __ldcg(other + entries + e / D), __ldcg(other + entries + ROWS + e / D), __ldcg(other + e));
                }
            }
        }
#pragma unroll
        for (int j = 0; j < per_thread; ++j) {
            const int e = threadIdx.x + j * threads;
            if (e >= entries) continue;
            from_float(fa[j] / fl[j], O + out_row0 * D + e);
            if (e % D == 0) p.lse[out_row0 + e / D] = fm[j] * 0.69314718055994531f + logf(fl[j]);
        }
    }
}

}  // namespace detail

// fixed-split's second launch: one CTA per output merges its splits' partials in split order.
template <typename T, int D, int ROWS>
__global__ void __launch_bounds__(detail::threads) split_reduce_kernel(const DecodeParams p) {
    using namespace detail;
    constexpr int entries = ROWS * D;
    const std::int64_t output = blockIdx.x;
    const std::int64_t peers = plan::contributor_count(p.plan, output);
    if (peers < 2) return;  // written directly by its only split
    T* O = static_cast<T*>(p.o);
    const std::int64_t out_row0 = output * ROWS;
    for (int e = threadIdx.x; e < entries; e += threads) {
        float m = -INFINITY, l = 0.0f, a = 0.0f;
        for (std::int64_t i = 0; i < peers; ++i) {
            const float* slot = p.partials + plan::contributor(p.plan, output, i) * (entries + 2 * ROWS);
            merge_state(m, l, a, slot[entries + e / D], slot[entries + ROWS + e / D], slot[e]);
        }
        from_float(a / l, O + out_row0 * D + e);
        if (e % D == 0) p.lse[out_row0 + e / D] = m * 0.69314718055994531f + logf(l);
    }
}

}  // namespace leanattn::cuda

// lean_decode_kernel.cuh — the fused decode-attention kernel: every CTA walks its plan segments with the
// core's CtaWalker and runs Algorithm 1 (online softmax over LeanTiles) on each; hosts reduce in the same
// launch (Algorithm 2), or every split stores a partial for the reduce kernel (fixed-split).
//
// Work split inside a CTA (8 warps): a segment's tokens are cut into blocks of STEPS × TOKENS_PER_STEP
// tokens dealt round-robin to the warps. In a warp, D/8 lanes share one token (each holds 8 dims, one
// 16-byte slot), so one warp-wide copy moves 512 contiguous bytes of K (or V). Blocks stream into a
// per-warp cp.async pipeline in shared memory, so the bytes in flight do not cost registers (what lets
// GQA, with up to 8 query rows per lane, stream as fast as MHA). Each warp keeps its own running
// (m, l, acc); the 8 warp states merge through shared memory at the end of a segment, so no block-wide
// barrier is paid per LeanTile. Shapes: see decode_params.cuh.
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

// A warp's end-of-segment state, written over its own (then idle) stage memory.
template <int ROWS, int D>
struct WarpState {
    float m[ROWS];
    float l[ROWS];
    float acc[ROWS][D];
};

// Per-warp shared memory: `stages` stages of (K block, V block), steps × 32 slots of 16 bytes each.
template <int STEPS, int STAGES>
struct WarpStages {
    static constexpr int slots = STAGES * 2 * STEPS * 32;
    static constexpr int bytes = slots * 16;
};

// Pipeline depth: about 24 KB of stages per warp, whatever the block size, so (stages − 1) blocks
// (≈ 16 KB per warp, 128 KB per SM) are in flight: enough to cover HBM latency at full bandwidth.
__host__ __device__ constexpr int steps_for(int rows) { return rows <= 2 ? 8 : (rows <= 4 ? 4 : 2); }
__host__ __device__ constexpr int stages_for(int steps) { return 24576 / (steps * 32 * 16 * 2) < 3 ? 3 : 24576 / (steps * 32 * 16 * 2); }

template <int ROWS, int D>
constexpr int shared_bytes() {
    return warps * WarpStages<steps_for(ROWS), stages_for(steps_for(ROWS))>::bytes;
}

}  // namespace detail

template <typename T, int D, int ROWS>
__global__ void __launch_bounds__(detail::threads) lean_decode_kernel(const DecodeParams p) {
    using namespace detail;
    static_assert(D == 64 || D == 128, "head_dim 64 or 128");
    constexpr int lanes_per_token = D / 8;
    constexpr int tokens_per_step = 32 / lanes_per_token;
    constexpr int steps = steps_for(ROWS);  // tokens per lane per block: their scores live in registers
    constexpr int block_tokens = steps * tokens_per_step;
    constexpr int stages = stages_for(steps);
    constexpr int entries = ROWS * D;  // output values of one output tile
    constexpr int per_thread = (entries + threads - 1) / threads;

    extern __shared__ uint4 smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint4* const warp_smem = smem + warp * WarpStages<steps, stages>::slots;
    auto stage_k = [](uint4* base, std::int64_t stage) { return base + stage * 2 * steps * 32; };
    auto state_of = [&](int w) { return reinterpret_cast<WarpState<ROWS, D>*>(smem + w * WarpStages<steps, stages>::slots); };
    static_assert(sizeof(WarpState<ROWS, D>) <= WarpStages<steps, stages>::bytes, "a warp's state fits its stage memory");
    const int chunk = lane % lanes_per_token;  // which 8 dims this lane holds
    const int sub = lane / lanes_per_token;    // which token of a step
    const std::int64_t cta = blockIdx.x;
    const T* Q = static_cast<const T*>(p.q);
    const T* K = static_cast<const T*>(p.k);
    const T* V = static_cast<const T*>(p.v);
    T* O = static_cast<T*>(p.o);
    const std::int64_t kv_heads = p.plan.kv_heads;

    for (CtaWalker walker(p.plan, cta); walker.valid(); walker.advance()) {
        const Segment seg = walker.current();
        const std::int64_t b = seg.output / kv_heads, h = seg.output % kv_heads;
        const std::int64_t tok_begin = seg.begin * p.tile;
        const std::int64_t tok_end = min(seg.end * p.tile, p.ctx[b]);
        const std::int64_t out_row0 = (b * kv_heads + h) * ROWS;  // first of the ROWS query heads (q_len = 1)
        const T* kbase = K + (b * kv_heads + h) * p.max_ctx * D + chunk * 8;
        const T* vbase = V + (b * kv_heads + h) * p.max_ctx * D + chunk * 8;

        float q[ROWS][8];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            to_float8(*reinterpret_cast<const uint4*>(Q + (out_row0 + r) * D + chunk * 8), Q, q[r]);
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
        auto issue = [&](std::int64_t i) {
            if (i < blocks) {
                uint4* ks = stage_k(warp_smem, i % stages);
                uint4* vs = ks + steps * 32;
                const std::int64_t start = first + i * warps * block_tokens;
#pragma unroll
                for (int s = 0; s < steps; ++s) {
                    const std::int64_t t = start + s * tokens_per_step + sub;
                    const bool live = t < tok_end;
                    cp_async_16(ks + s * 32 + lane, kbase + (live ? t : 0) * D, live);
                    cp_async_16(vs + s * 32 + lane, vbase + (live ? t : 0) * D, live);
                }
            }
            cp_async_commit();  // an empty group past the end keeps the wait count uniform
        };
#pragma unroll
        for (int i = 0; i < stages - 1; ++i) issue(i);
        for (std::int64_t i = 0; i < blocks; ++i) {
            issue(i + stages - 1);
            cp_async_wait<stages - 1>();
            const uint4* ks = stage_k(warp_smem, i % stages);
            const uint4* vs = ks + steps * 32;
            const std::int64_t start = first + i * warps * block_tokens;
            float score[steps][ROWS];
#pragma unroll
            for (int s = 0; s < steps; ++s) {
                float kf[8];
                to_float8(ks[s * 32 + lane], K, kf);
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
                for (int s = 1; s < steps; ++s) mx = fmaxf(mx, score[s][r]);
#pragma unroll
                for (int off = lanes_per_token; off < 32; off *= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
                m_new[r] = fmaxf(m[r], mx);
                const float correction = m_new[r] == -INFINITY ? 1.0f : exp2_or_zero(m[r] - m_new[r]);
                l[r] *= correction;
#pragma unroll
                for (int k = 0; k < 8; ++k) acc[r][k] *= correction;
                psum[r] = 0.0f;
            }
#pragma unroll
            for (int s = 0; s < steps; ++s) {
                float vf[8];
                to_float8(vs[s * 32 + lane], V, vf);
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
                // Host: wait for each peer in plan order, merge its partial (read from L2: L1 is not coherent).
                for (std::int64_t i = 1; i < peers; ++i) {
                    const std::int64_t peer = plan::contributor(p.plan, seg.output, i);
                    if (threadIdx.x == 0) {
                        while (load_acquire(p.flags + peer) != p.epoch) __nanosleep(32);
                    }
                    __syncthreads();
                    const float* other = p.partials + peer * (entries + 2 * ROWS);
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
        __syncthreads();  // shared state is reused by the next segment
    }
}

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

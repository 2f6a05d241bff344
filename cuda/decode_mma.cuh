// decode_mma.cuh — the decode kernel on tensor cores, for 2, 4 or 8 query rows per output tile (GQA).
//
// With g query heads per KV head, every K and V element serves g rows. On CUDA cores that costs g dot
// products and g lane-reductions per element and the kernel becomes compute-bound; here each warp does
// FlashAttention-2's inner loop with mma.sync m16n8k16 (rows padded to 16), so the arithmetic is nearly
// free and the kernel streams at memory speed again.
//
// Per warp and per block of 16 tokens (dealt round-robin to the 8 warps, as in decode_simt.cuh):
//   S (16 × 16 tokens)  = Q (16 × D) · Kᵀ          A: Q fragments held in registers for the segment
//                                                     B: K rows from shared memory by ldmatrix
//   online softmax on S's fragments (rows = lane / 4; 4 lanes share a row)
//   O (16 × D)         += P (16 × 16) · V          A: P, straight from S's accumulator layout
//                                                     B: V from shared memory by ldmatrix.trans
// K and V blocks stream through the per-warp cp.async pipeline in an XOR-swizzled layout (16-byte chunk c
// of token t sits at c ^ (t mod 8)), so the 8 rows an ldmatrix reads hit 8 different bank groups.
// Shapes: core/decode_tensors.hpp; Trace: cta_trace.cuh.
#pragma once

#include "decode_device.cuh"

namespace leanattn::cuda {

namespace detail {

__device__ inline std::uint32_t pack2(float lo, float hi, const __half*) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
}
__device__ inline std::uint32_t pack2(float lo, float hi, const __nv_bfloat16*) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
}
__device__ inline std::uint32_t load2(const __half* p) { return *reinterpret_cast<const std::uint32_t*>(p); }
__device__ inline std::uint32_t load2(const __nv_bfloat16* p) { return *reinterpret_cast<const std::uint32_t*>(p); }

// d (16×8 f32) += a (16×16) · b (16×8), fp16 or bf16 inputs.
__device__ inline void mma_16816(float d[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1, const __half*) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ inline void mma_16816(float d[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1, const __nv_bfloat16*) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ inline void ldmatrix_x4(std::uint32_t r[4], const void* smem_row) {
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ inline void ldmatrix_x4_trans(std::uint32_t r[4], const void* smem_row) {
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

}  // namespace detail

// Launch bounds (threads, 1): the 192 KB of shared memory allow one CTA per SM whatever the registers, so
// ptxas may use all it needs (left to aim at more CTAs per SM, it capped the registers and spilled).
template <typename T, int D, int ROWS, bool Trace>
__global__ void __launch_bounds__(detail::threads, 1) decode_mma_kernel(const DecodeParams p) {
    using namespace detail;
    static_assert(D == 64 || D == 128, "head_dim 64 or 128");
    static_assert(ROWS >= 1 && ROWS <= 8, "rows 8..15 of the m16 tile are padding");
    constexpr int block_tokens = 16;
    constexpr int chunks = D / 8;                           // 16-byte chunks per token row
    constexpr int stage_slots = 2 * block_tokens * chunks;  // K block, then V block
    constexpr int stages = stages_for(stage_slots * 16);
    static_assert(stages >= 3, "at least two blocks in flight while one is computed");
    constexpr int warp_slots = warp_smem_bytes / 16;
    static_assert(sizeof(WarpState<ROWS, D>) <= warp_smem_bytes, "a warp's state fits its stage memory");

    extern __shared__ uint4 smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = lane / 4;       // accumulator row of this lane (c0, c1); c2, c3 are padding rows
    const int col2 = 2 * (lane % 4);
    uint4* const warp_smem = smem + warp * warp_slots;
    auto state_of = [&](int w) { return reinterpret_cast<WarpState<ROWS, D>*>(smem + w * warp_slots); };
    auto slot = [](uint4* block, int token, int chunk) { return block + token * chunks + (chunk ^ (token & 7)); };
    const std::int64_t cta = blockIdx.x;
    const T* Q = static_cast<const T*>(p.tensors.q.data);
    const T* K = static_cast<const T*>(p.tensors.kv.k);
    const T* V = static_cast<const T*>(p.tensors.kv.v);
    CtaTrace<Trace> trace(p, cta);  // before the wait: a CTA's start is when it became resident
    for (CtaWalker walker = begin_cta(p, smem, trace); walker.valid(); walker.advance()) {
        trace.segment_begin();
        const Segment seg = walker.current();
        const SegmentSpan span = segment_span<ROWS>(p, seg);
        const std::int64_t tok_begin = span.tok_begin, tok_end = span.tok_end;

        // Q as the A operand, per 16-dim k-chunk: a0 = (row, col2..+1), a2 = (row, col2+8..+9); rows ≥ ROWS
        // and the padding rows 8..15 (a1, a3) are zero.
        std::uint32_t qa[D / 16][4];
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const T* qrow = Q + query_row_offset(p.tensors.q, span, row < ROWS ? row : 0) + kc * 16 + col2;
            qa[kc][0] = row < ROWS ? load2(qrow) : 0u;
            qa[kc][2] = row < ROWS ? load2(qrow + 8) : 0u;
            qa[kc][1] = qa[kc][3] = 0u;
        }
        float o[D / 8][4];
#pragma unroll
        for (int nd = 0; nd < D / 8; ++nd) o[nd][0] = o[nd][1] = o[nd][2] = o[nd][3] = 0.0f;
        float m = -INFINITY, l = 0.0f;  // of this lane's row

        const std::int64_t first = tok_begin + warp * block_tokens;
        const std::int64_t blocks = first < tok_end ? (tok_end - first + warps * block_tokens - 1) / (warps * block_tokens) : 0;
        auto issue = [&](std::int64_t i) {
            if (i < blocks) {
                uint4* kb = warp_smem + (i % stages) * stage_slots;
                uint4* vb = kb + block_tokens * chunks;
                const std::int64_t start = first + i * warps * block_tokens;
                with_token_offsets(span, [&](auto offset_of) {
#pragma unroll
                    for (int j = 0; j < block_tokens * chunks / 32; ++j) {
                        const int e = lane + 32 * j, t = e / chunks, c = e % chunks;
                        const bool live = start + t < tok_end;  // a dead token's copy reads nothing: any valid address will do
                        const std::int64_t src = offset_of(live ? start + t : tok_begin) + c * 8;
                        cp_async_16(slot(kb, t, c), K + src, live);
                        cp_async_16(slot(vb, t, c), V + src, live);
                    }
                });
            }
            cp_async_commit();
        };
        // The pipeline's fill is the loop's first (stages − 1) turns, so issue() has one call site: the code
        // run once per segment stays small (a cold instruction cache is part of every segment's fixed cost).
        std::int64_t contributors = 1;
        for (std::int64_t i = 1 - stages; i < blocks; ++i) {
            __syncwarp();  // every lane is done reading the stage the next issue overwrites
            issue(i + stages - 1);
            if (i < 0) {
                // The fill's last turn: the peers a host waits for, found while its first copies fly.
                if (i == -1) contributors = segment_contributors(p, walker.plan(), cta, seg);
                continue;
            }
            cp_async_wait<stages - 1>();
            __syncwarp();  // other lanes' copies of block i are visible
            uint4* kb = warp_smem + (i % stages) * stage_slots;
            uint4* vb = kb + block_tokens * chunks;
            const std::int64_t start = first + i * warps * block_tokens;

            // S = Q · Kᵀ for tokens [0, 8) and [8, 16) of the block.
            float s[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
#pragma unroll
            for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
                for (int kc2 = 0; kc2 < D / 32; ++kc2) {
                    // 4 matrices: tokens nt*8 + (lane % 8), chunks 4*kc2 + lane/8 → b0/b1 of k-chunks 2*kc2, 2*kc2+1.
                    std::uint32_t kf[4];
                    ldmatrix_x4(kf, slot(kb, nt * 8 + (lane % 8), 4 * kc2 + lane / 8));
                    mma_16816(s[nt], qa[2 * kc2], kf[0], kf[1], K);
                    mma_16816(s[nt], qa[2 * kc2 + 1], kf[2], kf[3], K);
                }
            }
            // Online softmax on this lane's row: its 4 scores are tokens col2, col2+1 of each 8-token half.
            float mx = -INFINITY;
#pragma unroll
            for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const bool live = start + nt * 8 + col2 + c < tok_end;
                    s[nt][c] = live ? s[nt][c] * p.scale_log2 : -INFINITY;
                    mx = fmaxf(mx, s[nt][c]);
                }
            }
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float m_new = fmaxf(m, mx);
            const float correction = m_new == -INFINITY ? 1.0f : exp2_or_zero(m - m_new);
            float pr[2][2], psum = 0.0f;
#pragma unroll
            for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    pr[nt][c] = m_new == -INFINITY ? 0.0f : exp2_or_zero(s[nt][c] - m_new);
                    psum += pr[nt][c];
                }
            }
            psum += __shfl_xor_sync(0xffffffffu, psum, 1);
            psum += __shfl_xor_sync(0xffffffffu, psum, 2);
            l = l * correction + psum;
            m = m_new;

            // O = diag(correction) O + P · V. P as the A operand (16 rows × 16 tokens): S's accumulator
            // layout is already A's, so P is packed in place; padding rows stay zero.
            std::uint32_t pa[4];
            pa[0] = pack2(pr[0][0], pr[0][1], V);
            pa[2] = pack2(pr[1][0], pr[1][1], V);
            pa[1] = pa[3] = 0u;
#pragma unroll
            for (int nd2 = 0; nd2 < D / 16; ++nd2) {
                // 4 matrices, transposed: tokens (lane/8 % 2)*8 + lane % 8, chunks 2*nd2 + lane/16 → b0/b1 of
                // dim tiles 2*nd2 (regs 0, 1) and 2*nd2 + 1 (regs 2, 3).
                std::uint32_t vf[4];
                ldmatrix_x4_trans(vf, slot(vb, ((lane / 8) % 2) * 8 + (lane % 8), 2 * nd2 + lane / 16));
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    float* acc = o[2 * nd2 + half];
                    acc[0] *= correction;
                    acc[1] *= correction;
                    mma_16816(acc, pa, vf[2 * half], vf[2 * half + 1], V);
                }
            }
        }
        cp_async_wait<0>();
        __syncwarp();

        // Warp state → shared memory (rows < ROWS only; the 4 lanes of a row hold its m and l alike).
        if (row < ROWS) {
            WarpState<ROWS, D>* st = state_of(warp);
#pragma unroll
            for (int nd = 0; nd < D / 8; ++nd) {
                st->acc[row][nd * 8 + col2] = o[nd][0];
                st->acc[row][nd * 8 + col2 + 1] = o[nd][1];
            }
            if (lane % 4 == 0) {
                st->m[row] = m;
                st->l[row] = l;
            }
        }
        __syncthreads();
        trace.stream_end();
        finish_segment<T, D, ROWS, Trace>(p, seg, span, cta, contributors, state_of, trace);
        __syncthreads();  // shared state is reused by the next segment
        trace.segment_end();
    }
    trace.cta_end();
}

}  // namespace leanattn::cuda

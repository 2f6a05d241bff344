// decode_mma.cuh — the decode kernel on tensor cores, for output tiles of 2 to 128 query rows (GQA groups,
// MQA, several new tokens per request), and of one row at head dim 96 (decode_simt.cuh takes one row at head
// dims 64, 128 and 256).
//
// With R query rows per KV head, every K and V element serves R rows. On CUDA cores that costs R dot
// products and R lane-reductions per element and the kernel becomes compute-bound; here each warp does
// FlashAttention-2's inner loop with mma.sync m16n8k16 on a tile of 16 rows (padded), so the arithmetic is
// nearly free and the kernel streams at memory speed again.
//
// Warps work in teams (MmaShape): a team shares one cp.async pipeline, and each of its warps computes one
// 16-row tile of the output tile (and, at head dim 256, one half of its dims: 256 dims of output would not
// fit one warp's registers, nor two 16-token blocks one warp's 24 KB of stages). With 16 rows or fewer a team
// is one warp, as FlashAttention-2's decode is; 128 rows make one team of 8 warps that all read every block.
// K and V are read from memory once per output tile either way. Turns of 1-4 blocks of 16 tokens
// (MmaShape::turn_blocks) are dealt round-robin to the teams; one-warp teams at head dim 64 compute their blocks two
// at a time, as one step of the online softmax (pair_blocks below); per warp and block:
//   S (16 × 16 tokens)  = Q (16 × D) · Kᵀ          A: Q fragments held in registers for the segment
//                                                     B: K rows from shared memory by ldmatrix
//   online softmax on S's fragments (lane holds rows lane / 4 and lane / 4 + 8; 4 lanes share a row), each
//   row masked at the tokens it sees (causal among the new tokens)
//   O (16 × D_SLICE)   += P (16 × 16) · V          A: P, straight from S's accumulator layout
//                                                     B: V from shared memory by ldmatrix.trans
// K and V blocks sit in shared memory swizzled (16-byte chunk c of token t moves by t), so the 8 rows one
// ldmatrix reads hit 8 different bank groups. Shapes: core/decode_tensors.hpp; Trace: cta_trace.cuh.
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

__device__ inline void ldmatrix_x4(std::uint32_t r[4], std::uint32_t addr) {  // addr: shared_address
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ inline void ldmatrix_x4_trans(std::uint32_t r[4], std::uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

// How the warps of one CTA share an output tile of ROWS rows (the kernel's row count, ≥ the problem's) at
// head dim D: row_tiles tiles of 16 rows × dim_slices slices of the head dim per team of `team` warps,
// `teams` teams per CTA.
template <int ROWS, int D>
struct MmaShape {
    static constexpr int row_tiles = ROWS <= 16 ? 1 : ROWS / 16;
    static constexpr int dim_slices = D == 256 ? 2 : 1;
    static constexpr int team = row_tiles * dim_slices;
    static constexpr int teams = warps / team;
    static constexpr int slice_dims = D / dim_slices;
    static_assert(ROWS <= 16 || ROWS % 16 == 0, "more than 16 rows come in whole tiles of 16");
    static_assert(team <= warps && warps % team == 0, "the teams tile the CTA's warps");
    // Blocks of 16 tokens a team takes per turn (one stage of its pipeline, one pair of barriers). A team of
    // several warps synchronises CTA-wide twice a turn, so it takes up to 4 / teams blocks at once (a CTA's turn
    // then covers 64 tokens whatever its teams), as many as leave its stage memory 6 stages or more. One team of
    // 8 warps taking one block a turn spent most of its time at the barriers (80-row MQA tiles: 0.5 us a turn).
    static constexpr int block_stage_bytes = 2 * 16 * D * 2;  // K and V of one block, 2-byte elements
    static constexpr int turn_blocks_for(int most) {
        return most <= 1 ? 1 : team * warp_smem_bytes / (most * block_stage_bytes) >= 6 ? most : turn_blocks_for(most / 2);
    }
    static constexpr int turn_blocks = team == 1 ? 1 : turn_blocks_for(4 / teams);
};

// Where 16-byte chunk c of token t of a block sits (in chunks from the block's start): rows of `chunks`
// chunks, chunk c moved by t so that 8 consecutive tokens' same chunk land in 8 different bank groups (an
// ldmatrix reads 8 such rows at once). Rows of 8, 16 or 32 chunks: c xor (t mod 8). Rows of 12 (head dim 96),
// whose starts fall on bank groups 0 and 4 alternately: within c's aligned group of 4, c xor ((t mod 8) / 2).
template <int chunks>
__device__ inline int swizzled(int t, int c) {
    if constexpr (chunks % 8 == 0) return t * chunks + (c ^ (t & 7));
    else {
        static_assert(chunks % 4 == 0, "rows of whole groups of 4 chunks");
        return t * chunks + ((c & ~3) | ((c ^ ((t & 7) >> 1)) & 3));
    }
}

// swizzled<chunks>(t, c) for rows of a multiple of 8 chunks, split into a part fixed per lane and a constant:
// with x = t mod 8, t·chunks + (c xor x) = (t − x)·chunks + 8·⌊c / 8⌋ + [x·chunks + ((c mod 8) xor x)]. The
// bracket is swizzled_lane_part(x, c mod 8), computed once per kernel; the rest is known at compile time in the loops
// below and folds into the ldmatrix's immediate offset (computed whole, the swizzle cost ~4 integer
// instructions per ldmatrix, 16 ldmatrix a turn).
template <int chunks>
__device__ inline int swizzled_lane_part(int x, int c_low) {
    static_assert(chunks % 8 == 0, "rows of whole groups of 8 chunks");
    return x * chunks + (c_low ^ x);
}

// A number of blocks as a type, for blocks_math's arrays.
template <int N>
struct BlockCount {
    static constexpr int value = N;
};

// Waits until the other warps of a team are where this one is: a one-warp team only needs its lanes to agree;
// larger teams wait for the whole CTA (all teams then take the same number of turns: see the main loop). A
// named barrier per team (bar.sync id, threads) let teams drift apart, but compute-sanitizer's racecheck
// reported hazards between one warp's cp.async into a stage and its partner's ldmatrix out of it with two-warp
// teams (none with one team of 8 warps, none with __syncthreads), and a correct kernel that cannot be checked
// is worth less than the drift.
template <int team_warps>
__device__ inline void team_sync() {
    if constexpr (team_warps == 1) __syncwarp();
    else __syncthreads();
}

// The kernel's body, for either source of segments (Work: LiveWork or TableWork, decode_device.cuh). Narrow: the
// plan's narrow streams (Schedule::narrow_streams), one-warp teams only: half the teams read the blocks.
template <typename T, int D, int ROWS, bool Narrow, bool Trace, typename Work>
__device__ __forceinline__ void decode_mma(const DecodeParams& p, Work work, CtaTrace<Trace>& trace) {
    using Shape = MmaShape<ROWS, D>;
    static_assert(!Narrow || Shape::team == 1, "narrow streams leave half of the one-warp teams idle");
    static_assert(D == 64 || D == 96 || D == 128 || D == 256, "head_dim 64, 96, 128 or 256");
    constexpr int block_tokens = 16;
    constexpr int chunks = D / 8;                           // 16-byte chunks per token row
    constexpr int block_slots = block_tokens * chunks;      // one block of K (or V)
    constexpr int turn_tokens = Shape::turn_blocks * block_tokens;
    constexpr int turn_slots = turn_tokens * chunks;        // one turn's K (or V): its blocks one after another
    constexpr int stage_slots = 2 * turn_slots;             // the turn's K, then its V
    constexpr int team_slots = Shape::team * warp_smem_bytes / 16;
    constexpr int stages = team_slots / stage_slots;
    static_assert(stages >= 3, "at least two blocks in flight while one is computed");
    // One-warp teams with 6 stages or more (head dim 64) compute their blocks two at a time (blocks_math below): a
    // block's math is one dependent chain of ~0.5 us (scores, the softmax's shuffles, P · V), and MQA's short segments
    // (Falcon-7B at one request: 8 blocks a warp) are bound by it, not by their bytes; two blocks share one max, one sum
    // and one rescale, and their loads and MMAs interleave. On an H100 (kernel v34, bench/NOTES.md) Falcon-7B's steps
    // took 0.94-0.98x the time; with fewer stages (head dims 96-256) too few blocks would stay in flight.
    constexpr bool pair_blocks = Shape::team == 1 && stages >= 6;
    constexpr int warp_slots = warp_smem_bytes / 16;
    constexpr int slice_dims = Shape::slice_dims;
    static_assert(sizeof(WarpState<16, slice_dims>) <= warp_smem_bytes, "a warp's state fits its stage memory");
    constexpr int copies_per_lane = (turn_slots + 32 * Shape::team - 1) / (32 * Shape::team);
    // With 8 rows or fewer, rows 8-15 of the tile (c2, c3; a1, a3) are padding: their softmax is skipped.
    constexpr bool second_row = ROWS > 8;

    extern __shared__ uint4 smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int team = warp / Shape::team, member = warp % Shape::team;
    const int row_tile = member / Shape::dim_slices, dim_slice = member % Shape::dim_slices;
    const int team_lane = member * 32 + lane;
    const int row0 = 16 * row_tile + lane / 4, row1 = row0 + 8;  // accumulator rows of this lane: (c0, c1), (c2, c3)
    const int col2 = 2 * (lane % 4);
    // The team's stages in the shared window (StageCursor says why an address and not a pointer).
    const std::uint32_t team_stages = shared_address(smem + team * team_slots);
    const SharedStates<16, slice_dims, Shape::team, Shape::dim_slices> states{smem, warp_slots};
    const std::int64_t cta = blockIdx.x;
    const T* Q = static_cast<const T*>(p.tensors.q.data);
    const T* K = static_cast<const T*>(p.tensors.kv.k);
    const T* V = static_cast<const T*>(p.tensors.kv.v);

    // Where this lane's copies of a whole block go: copy j moves chunk copy_c of token copy_t0 + j · pass_tokens
    // (a pass of the team's lanes covers pass_tokens tokens). Where that pattern holds (head dims 64, 128 and 256,
    // a team no wider than a block's chunks), a block inside the context in an evenly spaced cache (every layout
    // but paged) needs one source offset a turn and a constant step per copy; the general path (issue() below)
    // spent ~200 integer instructions a turn on 64-bit offsets and bounds, a third of the turn.
    constexpr bool regular_copies = (32 * Shape::team) % chunks == 0 && turn_slots % (32 * Shape::team) == 0;
    constexpr int pass_tokens = regular_copies ? 32 * Shape::team / chunks : 1;
    const int copy_t0 = team_lane / chunks, copy_c = team_lane % chunks;
    std::uint32_t copy_dst[copies_per_lane];  // bytes from the K block's start (V: one block further)
#pragma unroll
    for (int j = 0; j < copies_per_lane; ++j) copy_dst[j] = 16u * swizzled<chunks>(copy_t0 + j * pass_tokens, copy_c);
    // ldmatrix's per-lane parts (swizzled_lane_part): K's rows are tokens ≡ lane (mod 8), chunk 4·kc2 + lane / 8,
    // so (c mod 8) is 4·(kc2 mod 2) + lane / 8; V's (transposed) chunk 2·nd + lane / 16 of the head dim's nd-th
    // 16 dims, (c mod 8) = 2·(nd mod 4) + lane / 16, on token rows ((lane / 8) mod 2)·8 + lane mod 8.
    constexpr bool split_swizzle = chunks % 8 == 0;
    const int lane_x = lane % 8;
    std::uint32_t k_lane[2] = {0, 0}, v_lane[4] = {0, 0, 0, 0};
    if constexpr (split_swizzle) {
#pragma unroll
        for (int h = 0; h < 2; ++h) k_lane[h] = 16u * swizzled_lane_part<chunks>(lane_x, 4 * h + lane / 8);
        // This warp's slice of the head dim starts at 16-dim tile dim_slice · slice_dims / 16, a multiple of 4.
        const int slice_chunk0 = dim_slice * (slice_dims / 8);
#pragma unroll
        for (int q = 0; q < 4; ++q)
            v_lane[q] = 16u * (((lane / 8) % 2) * 8 * chunks + slice_chunk0 + swizzled_lane_part<chunks>(lane_x, 2 * q + lane / 16));
    }
    for (; work.valid(); work.advance()) {
        trace.segment_begin();
        const Segment seg = work.segment();
        const SegmentSpan span = work.span(p);
        const std::int64_t tok_begin = span.tok_begin, tok_end = span.tok_end;
        const int rows = span.rows;
        const bool computes = 16 * row_tile < rows;  // a 16-row tile wholly past the output tile's rows only copies
        // The tokens each of this lane's two rows sees (a row past the problem's sees none).
        const std::int64_t end0 = row0 < rows ? row_token_end(p, span, row0) : tok_begin;
        const std::int64_t end1 = second_row && row1 < rows ? row_token_end(p, span, row1) : tok_begin;
        // Tokens every row of the tile sees: those the first new token sees (a later one sees more).
        const std::int64_t seen_by_all = span.tokens - p.q_len + 1 < tok_end ? span.tokens - p.q_len + 1 : tok_end;

        // Q as the A operand, per 16-dim k-chunk: a0 = (row0, col2..+1), a1 = (row1, col2..+1),
        // a2 = (row0, col2+8..+9), a3 = (row1, col2+8..+9); rows past the problem's are zero.
        std::uint32_t qa[D / 16][4];
#pragma unroll
        for (int kc = 0; kc < D / 16; ++kc) {
            const T* q0 = Q + query_row_offset(p, p.tensors.q, span, row0 < rows ? row0 : 0) + kc * 16 + col2;
            const T* q1 = Q + query_row_offset(p, p.tensors.q, span, row1 < rows ? row1 : 0) + kc * 16 + col2;
            qa[kc][0] = row0 < rows ? load2(q0) : 0u;
            qa[kc][2] = row0 < rows ? load2(q0 + 8) : 0u;
            qa[kc][1] = second_row && row1 < rows ? load2(q1) : 0u;
            qa[kc][3] = second_row && row1 < rows ? load2(q1 + 8) : 0u;
        }
        float o[slice_dims / 8][4];
#pragma unroll
        for (int nd = 0; nd < slice_dims / 8; ++nd) o[nd][0] = o[nd][1] = o[nd][2] = o[nd][3] = 0.0f;
        float m0 = -INFINITY, l0 = 0.0f, m1 = -INFINITY, l1 = 0.0f;  // of this lane's rows

        // Narrow streams: the first half of the teams take the blocks, the others idle to the segment's end (their states
        // empty: m = −∞ merges as nothing). A template parameter, not a launch's: a run-time stride cost plans read with
        // every warp 1-3% (kernel v31).
        constexpr int streaming = Narrow ? Shape::teams / 2 : Shape::teams;
        const std::int64_t first = tok_begin + team * turn_tokens;
        const std::int64_t stride = streaming * turn_tokens;
        const std::int64_t blocks = team < streaming && first < tok_end ? (tok_end - first + stride - 1) / stride : 0;
        // Teams of several warps synchronise CTA-wide (team_sync), so every team takes as many turns as the
        // first, which has the most blocks; a team past its own blocks only keeps the barriers.
        const std::int64_t turns = Shape::team == 1 ? blocks : (tok_end - tok_begin + stride - 1) / stride;
        StageCursor<stages, 16u * stage_slots> issue_stage(team_stages), read_stage(team_stages);
        auto issue = [&](std::int64_t i, std::uint32_t kb) {
            if (i < blocks) {
                const std::uint32_t vb = kb + 16u * turn_slots;
                const std::int64_t start = first + i * stride;
                if (regular_copies && span.kv.table == nullptr && start + turn_tokens <= tok_end) {
                    const std::int64_t step = pass_tokens * span.kv.stride_token;
                    const std::int64_t src = span.kv.base + (start + copy_t0) * span.kv.stride_token + copy_c * 8;
                    const T* k_src = K + src;
                    const T* v_src = V + src;
#pragma unroll
                    for (int j = 0; j < copies_per_lane; ++j, k_src += step, v_src += step) {
                        cp_async_16(kb + copy_dst[j], k_src, true);
                        cp_async_16(vb + copy_dst[j], v_src, true);
                    }
                } else {  // a segment's last block, a paged cache, or no repeating pattern (head dim 96, a team wider than a block)
                    with_token_offsets(span, [&](auto offset_of) {
#pragma unroll
                        for (int j = 0; j < copies_per_lane; ++j) {
                            const int e = team_lane + 32 * Shape::team * j, t = e / chunks, c = e % chunks;
                            if (turn_slots % (32 * Shape::team) != 0 && e >= turn_slots) break;
                            const bool live = start + t < tok_end;  // a dead token's copy reads nothing: any valid address will do
                            const std::int64_t src = offset_of(live ? start + t : tok_begin) + c * 8;
                            cp_async_16(kb + 16u * swizzled<chunks>(t, c), K + src, live);
                            cp_async_16(vb + 16u * swizzled<chunks>(t, c), V + src, live);
                        }
                    });
                }
            }
            cp_async_commit();
        };
        // The math of NB blocks of 16 tokens (K at kb[b], V at vb[b], first token start[b]) as one step of the online
        // softmax: their scores, one max and one sum over all of them (one round of shuffles and one rescale of O
        // however many blocks), then P · V block after block. Two blocks at once give the warp two independent
        // chains of loads and MMAs where one block's is a single dependent chain.
        auto blocks_math = [&](auto count, const std::uint32_t* kb, const std::uint32_t* vb, const std::int64_t* start) {
            constexpr int NB = decltype(count)::value;
            // S = Q · Kᵀ for tokens [0, 8) and [8, 16) of each block.
            float s[NB][2][4];
#pragma unroll
            for (int b = 0; b < NB; ++b) {
#pragma unroll
                for (int nt = 0; nt < 2; ++nt) {
                    s[b][nt][0] = s[b][nt][1] = s[b][nt][2] = s[b][nt][3] = 0.0f;
#pragma unroll
                    for (int kc2 = 0; kc2 < D / 32; ++kc2) {
                        // 4 matrices: tokens nt*8 + (lane % 8), chunks 4*kc2 + lane/8 → b0/b1 of k-chunks 2*kc2, 2*kc2+1.
                        std::uint32_t kf[4];
                        if constexpr (split_swizzle) ldmatrix_x4(kf, kb[b] + k_lane[kc2 % 2] + 16u * (nt * 8 * chunks + 8 * (kc2 / 2)));
                        else ldmatrix_x4(kf, kb[b] + 16u * swizzled<chunks>(nt * 8 + (lane % 8), 4 * kc2 + lane / 8));
                        mma_16816(s[b][nt], qa[2 * kc2], kf[0], kf[1], K);
                        mma_16816(s[b][nt], qa[2 * kc2 + 1], kf[2], kf[3], K);
                    }
                }
            }
            // Online softmax on this lane's rows: its scores are tokens col2, col2+1 of each 8-token half, for
            // row0 (c0, c1) and row1 (c2, c3).
            // A block every row sees whole (all but a segment's last, and the new tokens' own with q_len > 1)
            // needs no mask: the test is one per block instead of one per score. (A padding row, past the tile's,
            // then scores 0 against every token: finite, and never stored.)
            float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                if (start[b] + block_tokens <= seen_by_all) {
#pragma unroll
                    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
                        for (int c = 0; c < 2; ++c) {
                            s[b][nt][c] *= p.scale_log2;
                            s[b][nt][2 + c] = second_row ? s[b][nt][2 + c] * p.scale_log2 : -INFINITY;
                            mx0 = max_nan(mx0, s[b][nt][c]);
                            mx1 = max_nan(mx1, s[b][nt][2 + c]);
                        }
                    }
                } else {
#pragma unroll
                    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
                        for (int c = 0; c < 2; ++c) {
                            const std::int64_t token = start[b] + nt * 8 + col2 + c;
                            s[b][nt][c] = token < end0 ? s[b][nt][c] * p.scale_log2 : -INFINITY;
                            s[b][nt][2 + c] = second_row && token < end1 ? s[b][nt][2 + c] * p.scale_log2 : -INFINITY;
                            mx0 = max_nan(mx0, s[b][nt][c]);
                            mx1 = max_nan(mx1, s[b][nt][2 + c]);
                        }
                    }
                }
            }
            mx0 = max_nan(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
            mx0 = max_nan(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
            if constexpr (second_row) {
                mx1 = max_nan(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
                mx1 = max_nan(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
            }
            const float new0 = max_nan(m0, mx0), new1 = max_nan(m1, mx1);
            const float corr0 = new0 == -INFINITY ? 1.0f : exp2_or_zero(m0 - new0);
            const float corr1 = !second_row || new1 == -INFINITY ? 1.0f : exp2_or_zero(m1 - new1);
            float pr[NB][2][4], psum0 = 0.0f, psum1 = 0.0f;
#pragma unroll
            for (int b = 0; b < NB; ++b) {
#pragma unroll
                for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
                    for (int c = 0; c < 2; ++c) {
                        pr[b][nt][c] = new0 == -INFINITY ? 0.0f : exp2_or_zero(s[b][nt][c] - new0);
                        pr[b][nt][2 + c] = !second_row || new1 == -INFINITY ? 0.0f : exp2_or_zero(s[b][nt][2 + c] - new1);
                        psum0 += pr[b][nt][c];
                        psum1 += pr[b][nt][2 + c];
                    }
                }
            }
            psum0 += __shfl_xor_sync(0xffffffffu, psum0, 1);
            psum0 += __shfl_xor_sync(0xffffffffu, psum0, 2);
            if constexpr (second_row) {
                psum1 += __shfl_xor_sync(0xffffffffu, psum1, 1);
                psum1 += __shfl_xor_sync(0xffffffffu, psum1, 2);
            }
            l0 = l0 * corr0 + psum0;
            l1 = l1 * corr1 + psum1;
            m0 = new0;
            m1 = new1;

            // O = diag(correction) O + P · V over this warp's dims. P as the A operand (16 rows × 16 tokens a block):
            // S's accumulator layout is already A's, so P is packed in place.
            std::uint32_t pa[NB][4];
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                pa[b][0] = pack2(pr[b][0][0], pr[b][0][1], V);
                pa[b][1] = pack2(pr[b][0][2], pr[b][0][3], V);
                pa[b][2] = pack2(pr[b][1][0], pr[b][1][1], V);
                pa[b][3] = pack2(pr[b][1][2], pr[b][1][3], V);
            }
            // O is rescaled only in steps where some row's max moved: after a segment's first blocks that is
            // rare, and one vote costs less than the slice_dims / 2 multiplies (a third of a block's floating-point
            // work). Skipped, each factor was exactly 1: no bit changes.
            if (__any_sync(0xffffffffu, corr0 != 1.0f || corr1 != 1.0f)) {
#pragma unroll
                for (int nd = 0; nd < slice_dims / 8; ++nd) {
                    o[nd][0] *= corr0;
                    o[nd][1] *= corr0;
                    o[nd][2] *= corr1;
                    o[nd][3] *= corr1;
                }
            }
#pragma unroll
            for (int b = 0; b < NB; ++b) {
#pragma unroll
                for (int nd2 = 0; nd2 < slice_dims / 16; ++nd2) {
                    // 4 matrices, transposed: tokens (lane/8 % 2)*8 + lane % 8, chunks 2*nd2' + lane/16 (nd2' = nd2
                    // within the whole head dim) → b0/b1 of dim tiles 2*nd2 (regs 0, 1) and 2*nd2 + 1 (regs 2, 3).
                    std::uint32_t vf[4];
                    if constexpr (split_swizzle) {
                        ldmatrix_x4_trans(vf, vb[b] + v_lane[nd2 % 4] + 16u * 8 * (nd2 / 4));
                    } else {
                        const int chunk = 2 * (dim_slice * (slice_dims / 16) + nd2) + lane / 16;
                        ldmatrix_x4_trans(vf, vb[b] + 16u * swizzled<chunks>(((lane / 8) % 2) * 8 + (lane % 8), chunk));
                    }
#pragma unroll
                    for (int half = 0; half < 2; ++half) mma_16816(o[2 * nd2 + half], pa[b], vf[2 * half], vf[2 * half + 1], V);
                }
            }
        };
        // The pipeline's fill is the loop's first (stages − 1) turns, so issue() has one call site: the code
        // run once per segment stays small (a cold instruction cache is part of every segment's fixed cost).
        std::int64_t contributors = 1;
        for (std::int64_t i = 1 - stages; i < turns; ++i) {
            team_sync<Shape::team>();  // every warp of the team is done reading the stage the next issue overwrites
            issue(i + stages - 1, issue_stage.at);
            issue_stage.advance();
            if (i < 0) {
                // The fill's last turn: the peers a host waits for, found while its first copies fly.
                if (i == -1) contributors = work.contributors(p, cta);
                continue;
            }
            if constexpr (pair_blocks) {
                // Blocks i and i + 1 at once (i even; an odd i was computed with the block before it): both waited for,
                // so stages − 2 blocks stay in flight while they are computed, where stages − 1 would for one.
                if (i % 2 != 0) continue;
                cp_async_wait<stages - 2>();
                __syncwarp();
                const std::uint32_t kb0 = read_stage.at;
                read_stage.advance();
                const std::uint32_t kb1 = read_stage.at;
                read_stage.advance();
                const std::uint32_t kbs[2] = {kb0, kb1}, vbs[2] = {kb0 + 16u * turn_slots, kb1 + 16u * turn_slots};
                const std::int64_t starts[2] = {first + i * stride, first + (i + 1) * stride};
                if (i + 1 < blocks) blocks_math(BlockCount<2>{}, kbs, vbs, starts);
                else blocks_math(BlockCount<1>{}, kbs, vbs, starts);
                continue;
            }
            cp_async_wait<stages - 1>();
            team_sync<Shape::team>();  // the team's copies of block i are visible to all its lanes
            const std::uint32_t turn_kb = read_stage.at, turn_vb = turn_kb + 16u * turn_slots;
            read_stage.advance();
            if (Shape::team > 1 && (!computes || i >= blocks)) continue;  // one warp's tile always has rows and blocks
#pragma unroll 1
            for (int sub = 0; sub < Shape::turn_blocks; ++sub) {
                const std::int64_t start = first + i * stride + sub * block_tokens;
                if (Shape::turn_blocks > 1 && start >= tok_end) break;  // the turn's last blocks lie past the segment
                const std::uint32_t kb = turn_kb + 16u * sub * block_slots, vb = turn_vb + 16u * sub * block_slots;
                blocks_math(BlockCount<1>{}, &kb, &vb, &start);
            }
        }
        cp_async_wait<0>();
        team_sync<Shape::team>();  // no warp of the team reads a stage any more: their memory can hold states

        // Warp state → its own shared memory: its 16 rows × slice_dims (the 4 lanes of a row hold its m and l
        // alike). A warp whose tile lies past the problem's rows writes nothing: nobody reads those rows.
        if (computes) {
            WarpState<16, slice_dims>* st = reinterpret_cast<WarpState<16, slice_dims>*>(smem + warp * warp_slots);
            const int r0 = lane / 4, r1 = r0 + 8;
#pragma unroll
            for (int nd = 0; nd < slice_dims / 8; ++nd) {
                st->acc[r0][nd * 8 + col2] = o[nd][0];
                st->acc[r0][nd * 8 + col2 + 1] = o[nd][1];
                if constexpr (second_row) {
                    st->acc[r1][nd * 8 + col2] = o[nd][2];
                    st->acc[r1][nd * 8 + col2 + 1] = o[nd][3];
                }
            }
            if (lane % 4 == 0) {
                st->m[r0] = m0;
                st->l[r0] = l0;
                if constexpr (second_row) {
                    st->m[r1] = m1;
                    st->l[r1] = l1;
                }
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
template <typename T, int D, int ROWS, bool Trace, bool Narrow = false>
__global__ void __launch_bounds__(detail::threads, 1) decode_mma_kernel(const DecodeParams p) {
    extern __shared__ uint4 smem[];
    detail::CtaTrace<Trace> trace(p, blockIdx.x);  // before the wait: a CTA's start is when it became resident
    detail::decode_mma<T, D, ROWS, Narrow>(p, detail::LiveWork{detail::begin_cta(p, smem, trace)}, trace);
}

// A host-lengths step: segments from the host's table in the launch's parameters (step_table.hpp).
template <typename T, int D, int ROWS, bool Trace, bool Narrow = false>
__global__ void __launch_bounds__(detail::threads, 1) decode_mma_table_kernel(const DecodeParams p, const __grid_constant__ StepTable step) {
    detail::CtaTrace<Trace> trace(p, blockIdx.x);
    trace.plan_waited();  // nothing to wait for or stage: the plan's marks are the start
    trace.plan_ready();
    allow_kernel_behind();  // fixed-split's reduce kernel may become resident
    const StepTable& table = step;
    const int empty_requests = table.empty_requests;  // read beside the table's first entries, used after the work
    const detail::TableWork work(table, static_cast<int>(blockIdx.x));
    detail::store_split_count(p, work);
    detail::decode_mma<T, D, ROWS, Narrow>(p, work, trace);
    if (empty_requests > 0) detail::clear_empty_requests(p, table, empty_requests, D);  // out of the work's way
}

// A staged step: the same table, copied into the workspace before the launch (decode.hpp: stage_step), so that a graph
// replays the step while the lengths change. A CTA's first read is its row of the table: one round trip to L2. A kernel
// of its own, not a choice of the table's source at run time: that choice slowed the launch's-table path 0.5-5%.
template <typename T, int D, int ROWS, bool Narrow = false>
__global__ void __launch_bounds__(detail::threads, 1) decode_mma_staged_kernel(const DecodeParams p) {
    detail::CtaTrace<false> trace(p, blockIdx.x);
    allow_kernel_behind();  // fixed-split's reduce kernel may become resident
    const StepTable& table = *p.staged_table;
    const int empty_requests = table.empty_requests;  // read beside the table's first entries, used after the work
    const detail::TableWork work(table, static_cast<int>(blockIdx.x));
    detail::store_split_count(p, work);
    detail::decode_mma<T, D, ROWS, Narrow>(p, work, trace);
    if (empty_requests > 0) detail::clear_empty_requests(p, table, empty_requests, D);  // out of the work's way
}

}  // namespace leanattn::cuda

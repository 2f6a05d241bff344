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
#include "step_table.hpp"

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
// A shared merge's count of arrivals (finish_segment): one release add per contributor once its partial is stored.
__device__ inline void add_release(std::int32_t* count, std::int32_t value) {
    asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(count), "r"(value) : "memory");
}

// 2^x on the SFU (ex2.approx: 2 ulp, results below 2^-126 flushed to 0), which gives +0 for x = −∞ as the softmax
// needs. exp2f's exact path (a test for −∞, a branch and a rescale around the same SFU call) cost the
// tensor-core turn about 60 of its ~540 instructions.
__device__ inline float exp2_or_zero(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// The larger of a and b, NaN if either is (max.NaN, sm_80+: one instruction, as fmaxf). fmaxf drops a NaN, so a row whose
// scores were all NaN (a NaN in q) kept m = −∞ and came out as a row that saw no token, 0 and −∞, and a NaN key could
// vanish or not by where it fell; with this every running maximum keeps it, and the row is NaN, as on the CPU. (One
// difference stays, as the README says: a non-finite V of a later new token also reaches earlier new tokens' rows,
// whose zero weight the tensor cores multiply by it.)
__device__ inline float max_nan(float a, float b) {
    float y;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
    return y;
}

// Merge (m2, l2, a2) into (m, l, a): the softmax re-scaling operator (associative; the paper's proof).
__device__ inline void merge_state(float& m, float& l, float& a, float m2, float l2, float a2) {
    const float mn = max_nan(m, m2);
    if (mn == -INFINITY) return;
    const float s1 = exp2_or_zero(m - mn), s2 = exp2_or_zero(m2 - mn);
    l = l * s1 + l2 * s2;
    a = a * s1 + a2 * s2;
    m = mn;
}

// 16-byte global → shared copy that bypasses registers and L1; `live == false` writes zeros instead
// (a token past the end of the context: its p is 0, and 0 · garbage could be NaN, 0 · 0 is not).
// `dst` is an address in the shared window (shared_address): loops that copy every turn keep one such base
// and add offsets, so the generic-to-shared conversion (which reads the CTA's id in its cluster on sm_90, and
// which the compiler may redo inside the loop rather than keep in a register) happens once per segment.
__device__ inline std::uint32_t shared_address(const void* smem) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(smem)); }
__device__ inline void cp_async_16(std::uint32_t dst, const void* gmem, bool live) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(gmem), "r"(live ? 16 : 0) : "memory");
}
// 16 bytes at shared-window address `addr` (volatile: after a cp.async wait, never hoisted above it).
__device__ inline uint4 load_shared_16(std::uint32_t addr) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
    return v;
}

// Which stage of a warp's (or team's) cp.async pipeline a turn issues into or reads: block j of a segment sits
// in stage j mod STAGES. The cursor is carried from turn to turn (an add, or a step back to the first stage)
// rather than computed from j: computed, it cost a 64-bit remainder per turn, and the compiler rebuilt the
// stages' base address from the CTA's cluster id (an S2R) every turn rather than hold it in a register; long
// no-split segments ran 5-12% slower for it (bench/NOTES.md, v18).
template <int STAGES, std::uint32_t STAGE_BYTES>
struct StageCursor {
    std::uint32_t at;  // the stage's shared-window address
    int index = 0;     // which stage it is
    __device__ explicit StageCursor(std::uint32_t first) : at(first) {}
    __device__ void advance() {
        if (++index == STAGES) index = 0, at -= (STAGES - 1) * STAGE_BYTES;
        else at += STAGE_BYTES;
    }
};
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

// Where one segment's data lives: request b, KV head h, its tokens [tok_begin, tok_end) (the last LeanTile
// may be partial; the live plan only hands out LeanTiles that hold tokens, so the range is never empty), the
// request's live tokens, the first of its query heads, the tile's rows (row0 … row0 + rows − 1 of the KV head:
// decode_params.cuh), and where its tokens sit in K and V (the per-request part of the address arithmetic, done
// once per segment: core's kv_tokens, the very arithmetic the CPU executor and the float64 reference use).
// A tile's own rows are numbered from 0 everywhere below; row_place turns one into the KV head's row.
struct SegmentSpan {
    std::int64_t b, h, tok_begin, tok_end, tokens, head0;
    int row0, rows;
    tensors::KvTokens kv;
};
// The output tile's request, KV head and rows (no tokens yet).
__device__ inline SegmentSpan output_span(const DecodeParams& p, std::int64_t output) {
    const std::int64_t per_request = p.plan.outputs_per_request;
    const std::int64_t b = output / per_request;
    const int within = static_cast<int>(output - b * per_request);
    // One row block unless a KV head's rows exceed a tile's: the usual case pays no division for it.
    const int h = p.row_blocks == 1 ? within : within / p.row_blocks, block = within - h * p.row_blocks;
    const int row0 = block * p.rows, all_rows = p.group * p.q_len;
    return {b, h, 0, 0, 0, h * p.group, row0, all_rows - row0 < p.rows ? all_rows - row0 : p.rows, {}};
}
__device__ inline SegmentSpan segment_span(const DecodeParams& p, const Segment& seg) {
    SegmentSpan span = output_span(p, seg.output);
    span.tokens = tensors::live_tokens(p.tensors.kv, p.tensors.seqlens, span.b);
    span.tok_begin = seg.begin * p.tile;
    span.tok_end = min(seg.end * p.tile, span.tokens);
    span.kv = tensors::kv_tokens(p.tensors.kv, span.b, span.h);
    return span;
}

// Where row r of an output tile belongs: row R = row0 + r of its KV head is new token R mod q_len of the tile's
// query head head0 + R / q_len (head counted from head0).
struct RowPlace {
    int token, head;
};
__device__ inline RowPlace row_place(const DecodeParams& p, const SegmentSpan& span, int r) {
    const int row = span.row0 + r;
    const int head = (row * p.q_len_reciprocal) >> 16;
    return {row - head * p.q_len, head};
}

// The end of the tokens row r of the tile sees within the segment: it is new token t of its query head (row_place),
// which sees the first tokens − q_len + t + 1 of its request (all of them with q_len 1).
__device__ inline std::int64_t row_token_end(const DecodeParams& p, const SegmentSpan& span, int r) {
    const std::int64_t seen = span.tokens - p.q_len + row_place(p, span, r).token + 1;
    return seen < span.tok_end ? seen : span.tok_end;
}

// Calls f(offset_of), offset_of(t) being the element offset of token t of the segment's (request, KV head)
// in K and in V (same strides), in the cheapest form: a multiply-add where the tokens are evenly spaced
// (strided and ragged caches), the block table otherwise. The layout is tested once per call, outside the
// caller's per-token loop, so the strided loop carries no paged code.
template <typename F>
__device__ inline void with_token_offsets(const SegmentSpan& span, F f) {
    if (span.kv.table == nullptr) {
        const std::int64_t base = span.kv.base, stride = span.kv.stride_token;
        f([=](std::int64_t t) { return base + t * stride; });
    } else {
        f([&](std::int64_t t) { return span.kv.offset(t); });
    }
}

// Element offset of row r of the segment's output tile in q (and, with out's strides, in out).
__device__ inline std::int64_t query_row_offset(const DecodeParams& p, const HeadTensor& t, const SegmentSpan& span, int r) {
    const RowPlace at = row_place(p, span, r);
    return tensors::row_offset(t, span.b, at.token, span.head0 + at.head);
}

// A warp's end-of-segment state, written over its own (then idle) stage memory: the rows and dims it holds.
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
        // Both loads of an entry before either store: one L2 round trip, where a load after the other's store
        // (which the compiler may not reorder, not knowing the arrays apart) cost two.
        for (std::int64_t i = threadIdx.x; i <= plan.batch; i += threads) {
            const std::int64_t tiles = i < plan.batch ? plan.request_tiles[i] : 0;
            const std::int64_t offset = plan.request_offset[i];
            if (i < plan.batch) staged[i] = tiles;
            staged[staged_requests + i] = offset;
        }
        plan.request_tiles = staged;
        plan.request_offset = staged + staged_requests;
    }
    __syncthreads();
}

// What both decode kernels do before their walk: the live plan (once the prologue is done), its arrays staged in
// shared memory, fixed-split's reduce kernel allowed to become resident (waiting by the time the last CTA ends),
// and the CTA's walker set at its first segment. The trace marks when the plan arrived and when it was staged.
template <bool Trace>
__device__ inline CtaWalker begin_cta(const DecodeParams& p, uint4* smem, CtaTrace<Trace>& trace) {
    PlanView plan = live_plan_view(p);
    trace.plan_waited();
    stage_plan_arrays(plan, reinterpret_cast<std::int64_t*>(smem + warps * warp_smem_bytes / 16));
    trace.plan_ready();
    allow_kernel_behind();
    if (plan.strategy != Strategy::stream_k) return CtaWalker(plan, blockIdx.x);
    // The set-up is one long chain of dependent instructions (~770 on the H100 under the aligned rule, ~2 us at
    // one warp's pace), and its two largest links, the range's ends, are one computation on two arguments:
    // neighbouring lanes compute one each, side by side, and swap.
    const bool odd = threadIdx.x & 1;
    const std::int64_t mine = plan::stream_k_start(plan, blockIdx.x + odd);
    const std::int64_t theirs = __shfl_xor_sync(0xffffffffu, mine, 1);
    return CtaWalker(plan, odd ? IterRange{theirs, mine} : IterRange{mine, theirs});
}

// The peers a host segment waits for: 1 unless the segment hosts an output it does not hold whole and this
// launch reduces it (stream-k). The kernels find it while the segment's first copies are in flight: after the
// stream it would sit in the decode's tail (~1.4 us of dependent lookups under the aligned rule).
__device__ inline std::int64_t segment_contributors(const DecodeParams& p, const PlanView& plan, std::int64_t cta, const Segment& seg) {
    return p.fused && seg.host && !seg.finishing ? plan::host_contributors(plan, cta, seg) : 1;
}

// A contributor's place in a shared merge (step_table.hpp, TableSegment::share_mask): its rank among its output's
// `count` contributors, the host first; count 0 where the segment is not part of one.
struct MergeShare {
    int rank = 0, count = 0;
};

// Where a CTA finds its segments, in the order it does them: each kernel's body takes either source and asks it
// for the segment (output and role), where its data lives, and for a host, how many contributors it reduces.
//
// LiveWork: the core's CtaWalker over the plan as the prologue derived it from the device-side lengths (begin_cta).
struct LiveWork {
    CtaWalker walker;
    __device__ bool valid() const { return walker.valid(); }
    __device__ void advance() { walker.advance(); }
    __device__ const Segment& segment() const { return walker.current(); }
    __device__ SegmentSpan span(const DecodeParams& p) const { return segment_span(p, walker.current()); }
    __device__ std::int64_t contributors(const DecodeParams& p, std::int64_t cta) const {
        return segment_contributors(p, walker.plan(), cta, walker.current());
    }
    __device__ MergeShare merge_share() const { return {}; }  // a step of run(): every host merges its peers itself
};

// TableWork: CTA g's rows of a StepTable the host made (step_table.hpp), read from the launch's parameters:
// nothing to wait for, stage or search before the first copy.
class TableWork {
public:
    __device__ TableWork(const StepTable& step, int cta) : step_(&step), at_(step.cta_first[cta]), end_(step.cta_first[cta + 1]) { load(); }
    __device__ bool valid() const { return at_ < end_; }
    __device__ void advance() {
        ++at_;
        load();
    }
    __device__ const Segment& segment() const { return seg_; }
    __device__ SegmentSpan span(const DecodeParams& p) const {
        const TableSegment& e = step_->segments[at_];
        SegmentSpan span = output_span(p, e.output);
        span.tokens = e.tokens;
        span.tok_begin = e.tok_begin;
        span.tok_end = e.tok_end;
        span.kv = tensors::kv_tokens(p.tensors.kv, span.b, span.h);
        return span;
    }
    __device__ std::int64_t contributors(const DecodeParams& p, std::int64_t) const { return p.fused ? host_count() : 1; }
    // What the host wrote for its segment: its output's contributors (1 unless a host of a split output).
    __device__ std::int64_t host_count() const {
        return seg_.host && !seg_.finishing ? step_->segments[at_].role & TableSegment::contributor_mask : 1;
    }
    __device__ MergeShare merge_share() const {
        const std::uint32_t role = step_->segments[at_].role;
        const int place = static_cast<int>((role & TableSegment::share_mask) >> TableSegment::share_shift);
        return place == 0 ? MergeShare{} : MergeShare{place - 1, static_cast<int>(role & TableSegment::contributor_mask)};
    }

private:
    __device__ void load() {
        if (at_ >= end_) return;
        const std::uint32_t role = step_->segments[at_].role;
        seg_.output = step_->segments[at_].output;
        seg_.host = (role & TableSegment::host_bit) != 0;
        seg_.finishing = (role & TableSegment::finishing_bit) != 0;
        seg_.valid = true;
    }
    const StepTable* step_;
    int at_, end_;
    Segment seg_;
};

// A host-lengths fixed-split step: CTA output · splits, the output's first split, writes how many splits the reduce
// kernel merges (0 when the output has no live token), before its own work. The reduce kernel reads it from L2,
// where the launch's parameters of its own would come from HBM after the decode (3-5% slower on an H200).
__device__ inline void store_split_count(const DecodeParams& p, const TableWork& work) {
    if (p.split_counts == nullptr || threadIdx.x != 0 || blockIdx.x % p.plan.splits != 0) return;
    p.split_counts[blockIdx.x / p.plan.splits] = work.valid() ? static_cast<std::int32_t>(work.host_count()) : 0;
}

// A host-lengths step's empty requests (step_table.hpp: listed after the CTAs' segments, `count` of them): this CTA
// writes the rows of entries blockIdx.x, blockIdx.x + grid, …: out 0 and lse −∞, as a row that sees no token gets (the
// prologue of a step of run() does the same), a warp per row. The two byte types' 0 is all zero bits. No division: each
// is a long sequence of instructions in every kernel, and this step is seldom taken.
__device__ inline void clear_empty_requests(const DecodeParams& p, const StepTable& step, int count, int head_dim) {
    const int first = step.cta_first[step.grid], warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const std::int64_t q_heads = static_cast<std::int64_t>(p.group) * (p.plan.outputs_per_request / p.row_blocks);
#pragma unroll 1
    for (int i = static_cast<int>(blockIdx.x); i < count; i += static_cast<int>(gridDim.x)) {
        const std::int64_t b = step.segments[first + i].output;
#pragma unroll 1
        for (std::int64_t token = 0; token < p.q_len; ++token) {
#pragma unroll 1
            for (std::int64_t head = warp; head < q_heads; head += warps) {
                std::uint16_t* row = static_cast<std::uint16_t*>(p.tensors.o.data) + tensors::row_offset(p.tensors.o, b, token, head);
#pragma unroll 1
                for (int d = lane; d < head_dim; d += 32) row[d] = 0;
                if (lane == 0 && p.tensors.lse.data != nullptr) p.tensors.lse.data[tensors::lse_offset(p.tensors.lse, b, token, head)] = -INFINITY;
            }
        }
    }
}

__host__ __device__ constexpr int stages_for(int stage_bytes) { return warp_smem_bytes / stage_bytes; }

// Row r's softmax result: O = a / l for `count` consecutive dims from d0 into out, and the natural-log LSE
// m·ln 2 + ln l (m is in log2 units) into softmax_lse when the caller asked for it (by the thread holding d = 0).
// Row r's place (new token r mod q_len of query head head0 + r / q_len) is found once for its values. A row
// that saw no token (an empty slot's, or a live length shorter than q_len, which the host refuses where it can read the
// lengths) has l = 0 and gets O = 0 and LSE = −∞ rather than 0 / 0; a NaN l (a NaN among its inputs) stays NaN, as on
// the CPU, rather than passing for a row that saw nothing.
template <typename T, int count>
__device__ inline void store_output(const DecodeParams& p, const SegmentSpan& span, int r, int d0, float m, float l, const float (&a)[count]) {
    const RowPlace at = row_place(p, span, r);
    const std::int64_t token = at.token, head = span.head0 + at.head;
    T* O = static_cast<T*>(p.tensors.o.data) + tensors::row_offset(p.tensors.o, span.b, token, head) + d0;
#pragma unroll
    for (int k = 0; k < count; ++k) from_float(l != 0.0f ? a[k] / l : 0.0f, O + k);
    const LseTensor& lse = p.tensors.lse;
    if (d0 == 0 && lse.data != nullptr) {
        lse.data[tensors::lse_offset(lse, span.b, token, head)] = l != 0.0f ? m * 0.69314718055994531f + logf(l) : -INFINITY;
    }
}

// How the end of a segment splits an output tile (ROWS × D values, ROWS the kernel's row count) over the
// CTA's threads: each thread holds `dims` consecutive values of one row, so the softmax scale factors, which
// depend on the row only, are computed once per thread and applied to its values with multiply-adds. A large
// tile is done in passes of `rows_per_pass` rows, so no thread holds more than 4 values of each of the up to 16
// states it merges at once (8 of the CTA's, 8 peers'). Threads past `active` idle, and so do rows past the
// problem's own count.
template <int ROWS, int D>
struct RowSlice {
    static constexpr int per_thread = ROWS * D / threads;
    static constexpr int dims = per_thread >= 4 ? 4 : per_thread >= 2 ? 2 : 1;
    static constexpr int lanes_per_row = D / dims;
    static constexpr int rows_per_pass = threads / lanes_per_row < ROWS ? threads / lanes_per_row : ROWS;
    static constexpr int passes = (ROWS + rows_per_pass - 1) / rows_per_pass;
    static constexpr int active = rows_per_pass * lanes_per_row;
    static_assert(D % dims == 0 && lanes_per_row <= threads, "a row splits evenly over at most one CTA of threads");
    int row, dim0;
    __device__ explicit RowSlice(int pass) : row(pass * rows_per_pass + threadIdx.x / lanes_per_row), dim0((threadIdx.x % lanes_per_row) * dims) {}
    __device__ bool on(int rows) const { return threadIdx.x < active && row < rows; }
};

// Where the end of a segment finds the CTA's partial states in shared memory: `count` of them, each the
// softmax state of every row over the tokens of its warp (decode_simt.cuh) or team of warps (decode_mma.cuh),
// to be merged in order. State s of row r, dim d lives in the WarpState of warp
//   s · TEAM + (r / ROW_TILE) · DIM_SLICES + d / D_SLICE,    row r mod ROW_TILE, dim d mod D_SLICE:
// a team of TEAM warps holds ROW_TILE rows × D_SLICE dims per warp (every warp of a row tile holds its m and l).
template <int ROW_TILE, int D_SLICE, int TEAM, int DIM_SLICES>
struct SharedStates {
    static constexpr int count = warps / TEAM;
    const uint4* smem;
    int warp_slots;
    __device__ const WarpState<ROW_TILE, D_SLICE>* at(int s, int r, int d) const {
        const int w = s * TEAM + (r / ROW_TILE) * DIM_SLICES + d / D_SLICE;
        return reinterpret_cast<const WarpState<ROW_TILE, D_SLICE>*>(smem + w * warp_slots);
    }
    __device__ float m(int s, int r) const { return at(s, r, 0)->m[r % ROW_TILE]; }
    __device__ float l(int s, int r) const { return at(s, r, 0)->l[r % ROW_TILE]; }
    __device__ float a(int s, int r, int d) const { return at(s, r, d)->acc[r % ROW_TILE][d % D_SLICE]; }
};

// One row's softmax state over `dims` values: the running max m (log2 units), the sum l, the un-scaled a.
template <int dims>
struct RowState {
    float m = -INFINITY, l = 0.0f, a[dims] = {};
};

// Merges n states into `into`, in order, as the softmax re-scaling operator merges them one by one, but with
// one exponential per state: the new max first, then every state scaled to it. A state with m = −∞ (no
// tokens) contributes nothing. Deterministic: the same order, the same operations, run after run.
template <int dims, int n>
__device__ inline void merge_row_states(RowState<dims>& into, const RowState<dims> (&others)[n], int count) {
    float mx = into.m;
#pragma unroll
    for (int i = 0; i < n; ++i) mx = i < count ? max_nan(mx, others[i].m) : mx;
    if (mx == -INFINITY) return;
    const float s0 = exp2_or_zero(into.m - mx);
    into.l *= s0;
#pragma unroll
    for (int k = 0; k < dims; ++k) into.a[k] *= s0;
#pragma unroll
    for (int i = 0; i < n; ++i) {
        const float si = i < count ? exp2_or_zero(others[i].m - mx) : 0.0f;
        into.l = fmaf(others[i].l, si, into.l);
#pragma unroll
        for (int k = 0; k < dims; ++k) into.a[k] = fmaf(others[i].a[k], si, into.a[k]);
    }
    into.m = mx;
}

// A thread's `dims` consecutive accumulators in a partial slot, moved as one access of 4, 2 or 1 floats (each thread's
// first dim is a multiple of dims, and slots start on 16 bytes: partial_slot_floats). Held in 4-byte accesses, a
// warp's loads of its peers' partials took 4 instructions, each spread over 16-byte steps, where one suffices.
template <int dims>
__device__ inline void store_values(float* at, const float (&a)[dims]) {
    if constexpr (dims == 4) *reinterpret_cast<float4*>(at) = make_float4(a[0], a[1], a[2], a[3]);
    else if constexpr (dims == 2) *reinterpret_cast<float2*>(at) = make_float2(a[0], a[1]);
    else at[0] = a[0];
}
// The same, read from L2 (ld.global.cg): L1 is not coherent with the peers' stores.
template <int dims>
__device__ inline void load_values_cg(const float* at, float (&a)[dims]) {
    if constexpr (dims == 4) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(at));
        a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
    } else if constexpr (dims == 2) {
        const float2 v = __ldcg(reinterpret_cast<const float2*>(at));
        a[0] = v.x, a[1] = v.y;
    } else {
        a[0] = __ldcg(at);
    }
}

// Merges into `acc` (row r, the thread's dims from d0) the partials of CTAs first, first + 1, …, first + n − 1, in that
// order, a batch at a time: every load of a batch is issued before the first merge, so a batch costs one L2 round trip.
template <int D, int dims>
__device__ inline void merge_partials(RowState<dims>& acc, const DecodeParams& p, std::int64_t first, std::int64_t n, int r, int d0) {
    constexpr int batch = 8;
    const std::int64_t entries = static_cast<std::int64_t>(p.rows) * D, slot_floats = partial_slot_floats(p.rows, D);
#pragma unroll 1
    for (std::int64_t i0 = 0; i0 < n; i0 += batch) {
        const int count = static_cast<int>(n - i0 < batch ? n - i0 : batch);
        RowState<dims> peers[batch];
#pragma unroll
        for (int b = 0; b < batch; ++b) {
            if (b >= count) continue;
            // Read from L2 (ld.cg): L1 is not coherent with the peers' stores.
            const float* other = p.partials + (first + i0 + b) * slot_floats;
            peers[b].m = __ldcg(other + entries + r);
            peers[b].l = __ldcg(other + entries + p.rows + r);
            load_values_cg(other + r * D + d0, peers[b].a);
        }
        merge_row_states(acc, peers, count);
    }
}

// A shared merge (MergeShare), once this contributor's partial is stored and its CTA has passed a barrier: it
// announces its partial on the host's flag, which counts arrivals, waits until every contributor has, then merges
// rows rank, rank + count, … of the output from all their partials, the host's first and then its peers' in plan
// order. Those are the very operations a host merging alone does on the same values, so the output has the same
// bits, and the merge takes one contributor's share of the rows instead of all of them: a host merging 15 peers
// alone spent 2.6 us after its wait on an H100 (Falcon-7B B=1 16k, 16 CTAs per output), while its peers had ended.
template <typename T, int D, int ROWS, bool Trace>
__device__ void merge_shared(const DecodeParams& p, const SegmentSpan& span, std::int64_t cta, const MergeShare& share, CtaTrace<Trace>& trace) {
    using Slice = RowSlice<ROWS, D>;
    constexpr int dims = Slice::dims;
    const std::int64_t host = cta - share.rank;
    std::int32_t* const arrivals = p.flags + host;
    trace.wait_begin();
    if (threadIdx.x == 0) {
        // The barrier before orders the CTA's partial stores before this release (finish_segment says why that
        // suffices). The count was 0 when the launch began, as a flag is.
        add_release(arrivals, 1);
        for (int polls = 0; load_acquire(arrivals) < share.count; ++polls) {
            if (polls >= 64) __nanosleep(32);
        }
        // Every contributor has arrived. Each adds one more on leaving, and the last to leave lowers the count to
        // 0 for the next run: no contributor reads it after leaving.
        if (atomicAdd(arrivals, 1) == 2 * share.count - 1) atomicExch(arrivals, 0);
    }
    __syncthreads();
    trace.wait_end();
    const std::int64_t entries = static_cast<std::int64_t>(p.rows) * D;
    const float* const first = p.partials + host * partial_slot_floats(p.rows, D);
    const int d0 = static_cast<int>(threadIdx.x % Slice::lanes_per_row) * dims;
#pragma unroll 1
    for (int j0 = 0; share.rank + j0 * share.count < span.rows; j0 += Slice::rows_per_pass) {
        const int r = share.rank + (j0 + static_cast<int>(threadIdx.x) / Slice::lanes_per_row) * share.count;
        if (threadIdx.x >= Slice::active || r >= span.rows) continue;
        RowState<dims> acc;
        acc.m = __ldcg(first + entries + r);
        acc.l = __ldcg(first + entries + p.rows + r);
        load_values_cg(first + r * D + d0, acc.a);
        merge_partials<D>(acc, p, host + 1, share.count - 1, r, d0);
        store_output<T>(p, span, r, d0, acc.m, acc.l, acc.a);
    }
}

// The end of a segment, once every warp has written its WarpState into its stage memory and the CTA has
// passed a barrier: merge the CTA's states (SharedStates) in order; then, by the segment's role in the plan,
// store a partial and release the flag, or (host) acquire each peer's flag and merge the peers' partials in
// plan order, and write O and the LSE; in a shared merge (`share`), every contributor stores its partial and then
// merges its share of the rows (merge_shared). The reduction order is fixed by the plan: bitwise reproducible.
// A partial slot holds rows · D un-scaled accumulators, then rows maxima, then rows sums (rows = p.rows, the
// fullest tile's count: workspace.hpp's partial_floats); a tile of fewer rows (span.rows) leaves their ends unused.
// The code here runs once per segment, from a cold instruction cache: it is kept short (no per-value
// exponentials, loops over peers not unrolled beyond one batch of loads).
template <typename T, int D, int ROWS, bool Trace, typename States>
__device__ void finish_segment(const DecodeParams& p, const Segment& seg, const SegmentSpan& span, std::int64_t cta, std::int64_t contributors,
                               const MergeShare& share, const States& states, CtaTrace<Trace>& trace) {
    using Slice = RowSlice<ROWS, D>;
    constexpr int dims = Slice::dims;
    const int rows = p.rows, own_rows = span.rows;  // the slot layout's; this tile's
    const std::int64_t entries = static_cast<std::int64_t>(rows) * D;
    const std::int64_t slot_floats = partial_slot_floats(rows, D);

    const bool split = plan::segment_is_split(seg);
    const bool shared = share.count > 0;  // then every contributor, the host too, stores its partial, then merges a share
    const bool stores_partial = split && (!seg.host || !p.fused || shared);  // for someone else to reduce
    float* const slot = p.partials + cta * slot_floats;
    if (split && !stores_partial) {
        // Host: this CTA, whose peers are the next CTAs. Acquire every peer's flag at once (thread i waits
        // on peer i), one barrier, then merge the partials in plan order, a batch of peers at a time: every
        // load of a batch is issued before the first merge, so a batch costs one L2 round trip.
        trace.wait_begin();
        for (std::int64_t i = 1 + threadIdx.x; i < contributors; i += threads) {
            // Spin first: a sleep's wake-up can come well after the flag. Back off only after a long wait.
            for (int polls = 0; load_acquire(p.flags + cta + i) != flag_set; ++polls) {
                if (polls >= 64) __nanosleep(32);
            }
            // Lowered at once: this run's peer raises it only once, and the next run (a later launch) finds it 0,
            // so a run leaves every flag as it found it, 0, with or without a prologue to clear them.
            p.flags[cta + i] = 0;
        }
        __syncthreads();
        trace.wait_end();
    }
#pragma unroll 1
    for (int pass = 0; pass < Slice::passes; ++pass) {
        const Slice me(pass);
        if (!me.on(own_rows)) continue;
        const int r = me.row, d0 = me.dim0;
        RowState<dims> acc, rest[States::count > 1 ? States::count - 1 : 1];
        acc.m = states.m(0, r);
        acc.l = states.l(0, r);
#pragma unroll
        for (int k = 0; k < dims; ++k) acc.a[k] = states.a(0, r, d0 + k);
#pragma unroll
        for (int s = 1; s < States::count; ++s) {
            rest[s - 1].m = states.m(s, r);
            rest[s - 1].l = states.l(s, r);
#pragma unroll
            for (int k = 0; k < dims; ++k) rest[s - 1].a[k] = states.a(s, r, d0 + k);
        }
        merge_row_states(acc, rest, States::count - 1);
        if (stores_partial) {
            // A partial: un-scaled a, m, l.
            store_values(slot + r * D + d0, acc.a);
            if (d0 == 0) {
                slot[entries + r] = acc.m;
                slot[entries + rows + r] = acc.l;
            }
            continue;
        }
        if (split) merge_partials<D>(acc, p, cta + 1, contributors - 1, r, d0);
        store_output<T>(p, span, r, d0, acc.m, acc.l, acc.a);
    }
    if (stores_partial && p.fused) {
        // Then the flag. The barrier makes every thread's stores of the partial precede thread 0's gpu-scope
        // release store, and a release is cumulative over what the barrier ordered before it (as a
        // fence.acq_rel would be; no heavier sequentially consistent fence is needed): a host that acquires the
        // 1 sees the whole partial. The flag was 0 when this launch began: the prologue cleared it (a step of run()),
        // or the host that read it in the run before lowered it (every run does; a host-lengths step has no prologue,
        // so its workspace starts zeroed), and stream order puts both before this launch. A CTA stores at most
        // one partial per run (only its first segment can be a non-host one), so a flag goes 0 → 1 once and a
        // waiting host can never see a 1 left from another run: no epoch, and a replayed CUDA graph (whose
        // kernel parameters never change) stays correct.
        __syncthreads();
        if (shared) merge_shared<T, D, ROWS>(p, span, cta, share, trace);
        else if (threadIdx.x == 0) store_release(p.flags + cta, flag_set);
    }
    // fixed-split: the reduce kernel reads the partials in a later launch (kernel boundary = ordering).
}

}  // namespace detail

}  // namespace leanattn::cuda

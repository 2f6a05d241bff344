// step_table.hpp — one decode step's work made on the host, for lengths the host knows when it launches:
// every CTA's segments with their tokens and roles, passed to the decode kernel in its launch parameters.
//
// A step of run() reads its lengths on the device: a prologue kernel derives the plan's per-request arrays, and
// each CTA of the decode kernel waits for it, copies the arrays into shared memory and searches them for its
// segments before its first copy of K and V (bench/NOTES.md put that chain at ~3 us of a 13-14 us decode on an
// H100). Where the host knows the lengths (a benchmark, an engine that builds each step's metadata on the CPU,
// an eager call that has read them anyway), the same walk can be done on the host, once, by the core's walker
// (so the segments are the very ones the device would find), and handed over with the launch: no prologue,
// nothing to wait for or search. The table lives in the kernel's parameter space (`__grid_constant__`), which
// every CTA reads through the constant cache. The host also marks the outputs whose contributors do nothing else in
// the launch, which they then merge together (TableSegment::share_mask): a step of run() has each host merge alone.
//
// Host and device header: plain data, and the host function that fills it (step_table.cpp).
#pragma once

#include <cstdint>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"

namespace leanattn::cuda {

// What one launch's parameters can hold (the table is ~11 KB of the 32 KB a launch may pass). A plan with more
// CTAs or segments at its lengths runs as run() does (decode.hpp says which calls fall back).
inline constexpr int max_table_ctas = 512;  // below TableSegment's 2^15 contributors
inline constexpr int max_table_segments = 512;

// One segment: a run of LeanTiles of one output tile done by one CTA, in tokens.
struct TableSegment {
    std::int32_t output = 0;     // output tile (core/problem.hpp's numbering); an empty request's entry: the request
    std::int32_t tok_begin = 0;  // tokens [tok_begin, tok_end) of the output's KV head; tok_end within the live length
    std::int32_t tok_end = 0;
    std::int32_t tokens = 0;     // the request's live tokens (new token t of a row sees the first tokens − q_len + t + 1)
    std::uint32_t role = 0;      // contributors (bits 0-14) | the segment's place among them + 1 (bits 15-29; 0: not a
                                 // shared merge) | host | finishing

    // Contributors: 1 but for a host that reduces a split output, and for every contributor of a shared merge.
    static constexpr std::uint32_t host_bit = 1u << 30, finishing_bit = 1u << 31, contributor_mask = (1u << 15) - 1;
    // A shared merge: a split output whose every contributor does nothing else in the launch (each CTA's one
    // segment). Instead of the host merging every peer's partial alone, each contributor stores its partial and,
    // once all have, merges a share of the output's rows (decode_device.cuh, finish_segment).
    static constexpr int share_shift = 15;
    static constexpr std::uint32_t share_mask = contributor_mask << share_shift;
};

// After the CTAs' segments come the step's empty requests (a padded batch's slots of length 0): no segment visits
// their outputs, so the kernel writes their rows (out 0, lse −∞), request segments[cta_first[grid] + i].output by CTA
// i mod grid. They fit whenever the segments do: each takes the place of at least one segment its tokens would have made.
struct StepTable {
    std::int32_t grid = 0;
    std::int32_t empty_requests = 0;
    std::uint16_t cta_first[max_table_ctas + 1] = {};  // CTA g's segments: [cta_first[g], cta_first[g + 1])
    TableSegment segments[max_table_segments];
    // Entries used: every CTA's segments, then the empty requests.
    int used_segments() const { return cta_first[grid] + empty_requests; }
};

// Fills `step` with the segments every CTA of `plan` does at the lengths `seqlens` (host memory; `kv`'s
// capacity, and for a ragged cache its cu_seqlens in host memory, clamp them as tensors::live_tokens does), as
// the core's walker finds them on the live plan (core/live_plan.hpp), so a host-lengths step runs the very
// segments a step of run() at these lengths would. False when they need more CTAs or segments than a launch
// holds, or the plan has more outputs than an int32 counts (then `step` is partly written and means nothing).
// `keep_snap`: the GPU cannot hold the plan's grid at once, so the snap stands at any lengths, as run() keeps it
// (core's live_view).
bool make_step_table(const Schedule& plan, const KvCacheView& kv, const std::int32_t* seqlens, StepTable& step, bool keep_snap = false);

// Whether every step of `plan`, at any lengths up to its capacities, fits a table: at most max_table_ctas CTAs, and
// at most max_table_segments segments however the live lengths cut them (a CTA's contiguous range of LeanTiles holds one
// segment per output it touches: stream-k at most grid + outputs − 1, the others one per CTA). What a staged step
// needs, decided from the plan alone, since a graph's captured step cannot change kind from one replay to the next.
bool stageable(const Schedule& plan);

// Marks the shared merges among a filled table's stream-k outputs (TableSegment::share_mask): each split output whose
// host and peers each have that one segment. make_step_table calls it for plans whose launch reduces its outputs.
void mark_shared_merges(StepTable& step);

}  // namespace leanattn::cuda

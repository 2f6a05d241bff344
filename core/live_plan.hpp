// live_plan.hpp — a plan's per-request arrays from the lengths of this decode step.
//
// A plan is made once from the context lengths a cache can hold (its capacities): its grid and, for
// fixed-split, its split count depend on nothing else. At each step the live lengths give the per-request
// LeanTile counts and offsets the walker reads; the CPU executor derives them here, on the host, and the
// CUDA code on the device with the same two functions, so a captured CUDA graph replays while lengths grow.
#pragma once

#include <cstdint>
#include <vector>

#include "decode_tensors.hpp"
#include "host_device.hpp"
#include "plan_view.hpp"
#include "schedule.hpp"
#include "walker.hpp"

namespace leanattn {

namespace plan {

// LeanTiles of a request of `tokens` tokens: ⌈tokens / tile⌉ (0 for an empty request: no CTA visits it).
LEANATTN_HD inline std::int64_t tiles_for(std::int64_t tokens, std::int64_t tile) { return (tokens + tile - 1) / tile; }

// fixed-split's chunk for the live longest request: ⌈n / splits⌉, at least 1 so that an all-empty step walks.
LEANATTN_HD inline std::int64_t fixed_split_chunk(std::int64_t longest_tiles, std::int64_t splits) {
    const std::int64_t chunk = (longest_tiles + splits - 1) / splits;
    return chunk > 0 ? chunk : 1;
}

// stream-k: the LeanTiles of the most loaded CTA under p's starts (with its snap). O(G · log batch).
LEANATTN_HD inline std::int64_t stream_k_max_load(const PlanView& p) {
    std::int64_t most = 0, start = 0;
    for (std::int64_t g = 0; g < p.grid; ++g) {
        const std::int64_t next = stream_k_start(p, g + 1);
        most = next - start > most ? next - start : most;
        start = next;
    }
    return most;
}

// stream-k: ⌈I/G⌉, the most loaded CTA of the paper's plan (snap 0).
LEANATTN_HD inline std::int64_t stream_k_ideal_max_load(const PlanView& p) { return (p.total_tiles + p.grid - 1) / p.grid; }

// Whether a live step keeps the capacity plan's snap, `live` holding the live arrays and total and `live_max`
// being its most loaded CTA under that snap: its load over the ideal may exceed the capacity plan's by 10% at
// most (what the cost model accepted, where merges saved by the snap were weighed against this very imbalance);
// otherwise the step runs the paper's plan. In doubles, rounded alike on the host and the device (exact while
// loads stay below 2^24 LeanTiles).
LEANATTN_HD inline bool keeps_snap(const PlanView& live, std::int64_t live_max) {
    if (live.capacity_max_load == 0 || live.total_tiles == 0) return true;
    const double over_live = static_cast<double>(live_max) * static_cast<double>(live.capacity_ideal_load);
    const double over_capacity = static_cast<double>(live.capacity_max_load) * static_cast<double>(stream_k_ideal_max_load(live));
    return 10.0 * over_live <= 11.0 * over_capacity;
}

// stream-k: whether CTA g's range is exactly output g, whole, for every g (so grid = outputs): the very segments
// no-split walks. No-split's walk finds a CTA's segment with one lookup where the aligned rule's set-up searches
// the plan (measured on an H100: 0.4-0.8 us of a 15-22 us decode), so a step of such a plan walks as no-split;
// the segments, and so every bit of the output, are the same. O(G · log batch).
LEANATTN_HD inline bool one_output_per_cta(const PlanView& p) {
    if (p.strategy != Strategy::stream_k || p.grid != outputs(p)) return false;
    for (std::int64_t g = 0; g < p.grid; ++g) {
        if (stream_k_start(p, g) != output_offset(p, g)) return false;
    }
    return true;  // and start(G) = I = the end of the last output
}

}  // namespace plan

// The schedule's view with per-request arrays derived from host-readable lengths: fills request_tiles
// (batch) and request_offset (batch + 1), which the returned view points to; the live total, fixed-split's
// live chunk, and stream-k's live snap (the plan's, or 0 where plan::keeps_snap refuses it); a stream-k step whose
// CTAs each hold one whole output (plan::one_output_per_cta) comes back as no-split. `keep_snap`: the snap stands
// whatever the lengths (a GPU that cannot hold the grid at once must not run the paper's plan: its hosts could wait on
// CTAs that never become resident; cuda's run() keeps it so on the device).
PlanView live_view(const Schedule& schedule, const KvCacheView& kv, const std::int32_t* seqlens, std::int64_t* request_tiles,
                   std::int64_t* request_offset, bool keep_snap = false);

// The step a plan made for capacities runs at `live` lengths (one per request, each in [q_len, its capacity]), as a
// schedule of its own: the problem at those lengths, with live_view's arrays, total, chunk, snap and strategy, and the
// plan's grid, splits and launches. What a simulator plays to predict such a step.
Schedule live_schedule(const Schedule& schedule, const std::vector<std::int64_t>& live);

}  // namespace leanattn

// live_plan.hpp — a plan's per-request arrays from the lengths of this decode step.
//
// A plan is made once from the context lengths a cache can hold (its capacities): its grid and, for
// fixed-split, its split count depend on nothing else. At each step the live lengths give the per-request
// LeanTile counts and offsets the walker reads; the CPU executor derives them here, on the host, and the
// CUDA code on the device with the same two functions, so a captured CUDA graph replays while lengths grow.
#pragma once

#include <cstdint>

#include "decode_tensors.hpp"
#include "host_device.hpp"
#include "plan_view.hpp"
#include "schedule.hpp"

namespace leanattn {

namespace plan {

// LeanTiles of a request of `tokens` tokens: ⌈tokens / tile⌉ (0 for an empty request: no CTA visits it).
LEANATTN_HD inline std::int64_t tiles_for(std::int64_t tokens, std::int64_t tile) { return (tokens + tile - 1) / tile; }

// fixed-split's chunk for the live longest request: ⌈n / splits⌉, at least 1 so that an all-empty step walks.
LEANATTN_HD inline std::int64_t fixed_split_chunk(std::int64_t longest_tiles, std::int64_t splits) {
    const std::int64_t chunk = (longest_tiles + splits - 1) / splits;
    return chunk > 0 ? chunk : 1;
}

}  // namespace plan

// The schedule's view with per-request arrays derived from host-readable lengths: fills request_tiles
// (batch) and request_offset (batch + 1), which the returned view points to.
PlanView live_view(const Schedule& schedule, const KvCacheView& kv, const std::int32_t* seqlens, std::int64_t* request_tiles,
                   std::int64_t* request_offset);

}  // namespace leanattn

// plan_view.hpp — the plan as plain data: what the walker (and the CUDA kernel) reads.
//
// A plan is a handful of integers plus two per-request arrays; everything else (which output a LeanTile
// belongs to, which CTA hosts an output) is computed from them in O(log batch). The arrays are owned by a
// Schedule on the host, or copied to device memory by cuda/; PlanView only points at them.
#pragma once

#include <cstdint>

#include "host_device.hpp"
#include "strategy.hpp"

namespace leanattn {

struct PlanView {
    Strategy strategy = Strategy::stream_k;
    std::int64_t grid = 0;         // CTAs launched
    std::int64_t total_tiles = 0;  // I: LeanTiles of all output tiles
    std::int64_t batch = 0;
    std::int64_t outputs_per_request = 0;  // output tiles of one request: kv_heads × row blocks (problem.hpp)
    std::int64_t splits = 1;       // fixed-split: CTAs per output; 1 otherwise
    std::int64_t chunk = 0;        // fixed-split: LeanTiles per split, ceil(n_max / splits)
    std::int64_t snap = 0;         // stream-k: how far (LeanTiles) a CTA start may move onto an output
                                   // boundary; 0 = the paper's plan (walker.hpp, stream_k_start)
    std::int64_t capacity_max_load = 0;    // stream-k, aligned, snap > 0: the LeanTiles of the most loaded CTA at
    std::int64_t capacity_ideal_load = 0;  // the plan's own lengths, and ⌈I/G⌉ there; a live step keeps the snap
                                           // only if it unbalances no more (live_plan.hpp). 0: kept whatever
    bool capacity_one_output_per_cta = false;  // stream-k: at the plan's own lengths CTA g holds exactly output g
                                               // (plan::one_output_per_cta): such a step walks as no-split
    const std::int64_t* request_tiles = nullptr;   // (batch)   LeanTiles of each output tile of request b
    const std::int64_t* request_offset = nullptr;  // (batch+1) first iteration of request b; [batch] = I
};

}  // namespace leanattn

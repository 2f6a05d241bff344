// stream_k_cost.hpp — the aligned rule's cost model: how long a stream-k plan is estimated to take on its
// device, and the snap (and grid) that makes it cheapest. docs/planner.md explains it with examples.
//
// The estimate, launch excluded, assumes every CTA of the grid is resident at once (stream-k's grid is at
// most the resident CTAs) and is the latest CTA's finish:
//     est = max over non-empty CTAs g of
//             startup + w_g · (tile_bytes · k_sm / sm_rate + tile_compute)    stream + compute its LeanTiles
//           + (segments_g − 1) · restart                                       each further output: new Q, pipeline refill
//           + [first segment continues another CTA's output] · partial         store un-scaled O, m, l; set the flag
//           + [last segment hosts a split output] · (peers) · merge            wait for and merge each peer's partial
//           + host segments · store                                            write O and the LSE
// w_g: the CTA's LeanTiles; k_sm: non-empty CTAs on its SM (CTA g runs on SM g mod SMs, core's sm_of_cta);
// sm_rate: bytes_in_flight_per_sm / loaded latency with the plan's streaming SMs of that HBM partition
// (core/loaded_latency.hpp, the simulator's memory law). Every CTA is charged the rate it gets while all
// stream: exact for equal loads, pessimistic for unequal ones (a short CTA's bandwidth goes to the others
// when it ends), which leans toward the paper's balanced plan. A CTA on a crowded SM streams slower: the
// model sees that spreading CTAs over more SMs, or fewer outputs per CTA, is worth something.
#pragma once

#include <cstdint>
#include <vector>

#include "device_spec.hpp"
#include "plan_view.hpp"
#include "problem.hpp"

namespace leanattn {

// The model's fixed costs, from the device's timing fields (data/devices/README.md). They are not yet
// calibrated against the GPU; this is the one place that turns them into the model's terms.
struct StreamKCosts {
    double tile_bytes = 0.0;       // K+V of one LeanTile: tile · head_dim · 2 · 2 bytes (the GPU kernels are fp16/bf16)
    double tile_compute_ns = 0.0;  // tile_compute_ns · ⌈q_len · group / 16⌉: compute the loads do not hide
    double startup_ns = 0.0;       // cta_startup_ns, once per non-empty CTA
    double restart_ns = 0.0;       // cta_startup_ns again per further segment: Q, accumulators, a pipeline refill
    double partial_ns = 0.0;       // partial_store_ns: a non-host segment's partial, fence and flag
    double merge_ns = 0.0;         // flag_wait_ns + reduce_per_partial_ns: a host, per peer
    double store_ns = 0.0;         // output_store_ns: a host writes its output

    static StreamKCosts of(const Problem& problem, const DeviceTiming& timing);
};

// The estimate (ns, launch excluded) of a stream-k plan: `plan` carries its grid, snap and request arrays.
double estimate_stream_k_ns(const PlanView& plan, const Problem& problem, const DeviceSpec& device);

struct AlignedCandidate {
    std::int64_t grid = 0;
    std::int64_t snap = 0;
    double estimate_ns = 0.0;
};

// What the aligned rule weighs, in this order, each estimated: on `plan.grid` CTAs, snap 0 (the paper's
// plan), 1, 2, 4, … below n_max, then n_max (the longest output's LeanTiles: every start lands on a
// boundary, whole outputs); then, unless `grid_given` or there are at least as many outputs as CTAs, the
// same snaps on one CTA per output (grid = outputs: for equal outputs exactly no-split's plan, so the rule
// can always fall back to it). O(candidates · grid · log batch).
std::vector<AlignedCandidate> aligned_candidates(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given);

// The first cheapest candidate: ties go to the earlier one (the full grid, then the smaller snap: the plan
// closest to the paper's).
AlignedCandidate choose_aligned(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given);

}  // namespace leanattn

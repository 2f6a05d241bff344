// stream_k_cost.hpp — the aligned rule's cost model: how long a stream-k plan is estimated to take on its
// device, and the grid and snap that make it cheapest. docs/planner.md explains it with examples.
//
// The estimate (launch excluded) is the latest CTA's finish, every CTA of the grid resident at once:
//  - Streaming. The SMs of an HBM partition that have K and V to read share it: while m of them stream,
//    each reads bytes_in_flight_per_sm / L(m) (core/loaded_latency.hpp, the simulator's memory law), so an
//    SM that finishes early hands its share to the rest (processor sharing, as the simulator plays it).
//    CTA g runs on SM g mod SMs (core's sm_of_cta); CTAs on one SM split its rate equally. A request's last
//    LeanTile may be partial: only its tokens are read (tile · head_dim · 2 · 2 bytes per full LeanTile, as
//    the GPU kernels are fp16/bf16).
//  - A CTA's own finish = when its bytes are read + its other work:
//        startup + LeanTiles · tile_compute + (segments − 1) · restart + whole outputs · store
//        + [its first segment continues another CTA's output] · partial
//  - A CTA whose last segment hosts a split output then needs its peers' partials (a peer publishes its
//    partial once its first segment is done), acquires their flags at once, as the kernel does, and merges
//    them in order: max(own finish, peers' partials) + flag + peers · merge + store.
// Additive where the simulator overlaps (a computing CTA's bandwidth goes to the others meanwhile), and
// blind to waves (the grid is at most the resident CTAs): an estimate for ranking plans, not a prediction.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device_spec.hpp"
#include "plan_view.hpp"
#include "problem.hpp"

namespace leanattn {

// The model's costs, from the device's timing fields (data/devices/README.md). They are not yet calibrated
// against the GPU; this is the one place that turns them into the model's terms.
struct StreamKCosts {
    double token_bytes = 0.0;      // K+V bytes of one token of one output: head_dim · 2 · 2 (fp16/bf16)
    double reread = 1.0;           // row_block_reread: the HBM share of a later row block read side by side (grids
                                   // beyond the resident CTAs only: aligned_candidates says why)
    double tile_compute_ns = 0.0;  // tile_compute_ns · ⌈q_len · group / 16⌉: compute the loads do not hide
    double startup_ns = 0.0;       // cta_startup_ns, once per non-empty CTA
    double restart_ns = 0.0;       // cta_startup_ns again per further segment: Q, accumulators, a pipeline refill
    double partial_ns = 0.0;       // partial_store_ns: a non-host segment's partial, fence and flag
    double flag_ns = 0.0;          // flag_wait_ns: a host acquiring its peers' flags, all at once
    double merge_ns = 0.0;         // reduce_per_partial_ns: a host, per peer, loading and merging its partial
    double store_ns = 0.0;         // output_store_ns: a host writes its output

    static StreamKCosts of(const Problem& problem, const DeviceTiming& timing);
};

struct StreamKEstimate {
    double makespan_ns = 0.0;   // launch excluded
    std::int64_t partials = 0;  // segments that store a partial for a host: one per CTA start inside an output
    std::int64_t empty = 0;     // CTAs launched with no LeanTiles
    std::int64_t most_tiles = 0;   // LeanTiles of the most loaded CTA
    std::int64_t least_tiles = 0;  // LeanTiles of the least loaded CTA that holds any
};

// The estimate of a stream-k plan: `plan` carries its grid, snap and request arrays (those of `problem`).
StreamKEstimate estimate_stream_k(const PlanView& plan, const Problem& problem, const DeviceSpec& device);

struct AlignedCandidate {
    std::int64_t grid = 0;
    std::int64_t snap = 0;
    StreamKEstimate estimate;
};

// What the aligned rule weighs, in this order: grids G = plan.grid, then (unless `grid_given`) k CTAs on every
// output (k · outputs, the largest multiple of the outputs below G, if k >= 2), G/2, G/4, …, 1 and the number of
// outputs if below G; on each, snap 0 (the paper's plan on that grid), 1, 2, 4, … below n_max, then n_max (the
// longest output's LeanTiles: every start lands on a boundary, whole outputs), stopping early at the first snap
// whose plan has no partial (every start on a boundary already).
//  - Smaller grids put fewer CTAs on an output, so its host merges fewer partials: with a few long outputs,
//    merging 100+ partials costs more than the bandwidth of the SMs it frees.
//  - k CTAs on every output give each CTA one segment of one output (equal outputs): no restart on a second
//    output, k − 1 partials per host. On an H100 such grids ran 4-9% faster than the full grid whose CTAs
//    straddle two outputs (32 outputs on 128 CTAs against 132).
//  - One CTA per output is, for equal outputs, exactly no-split's plan, so the rule can always fall back to it.
// A grid is skipped when a lower bound (all bytes at the bandwidth of min(grid, SMs) SMs; the average CTA's
// bytes at one lone SM's rate; its compute) cannot beat the best estimate so far. Returns what was
// estimated, in order. O(snaps · (grid · log batch + SMs · log SMs)) a grid.
std::vector<AlignedCandidate> aligned_candidates(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given);

// The cheapest candidate. Of equal estimates (within 1e-9, relative), a balanced one wins (its most loaded CTA holds
// at most 1.5x its grid's fair share, ⌈LeanTiles / grid⌉, or its CTAs that hold work hold the same to one LeanTile):
// where a host's wait bounds the estimate, a snap that empties CTAs and piles their LeanTiles onto a few neighbours
// looks free, and ran 1.6-2.1x slower on an H100 than the balanced plan on the same grid. Then the one with fewer
// partials (the model's fixed costs are the uncertain part, and measured splits cost more than they say), then the
// one with fewer empty CTAs (each still takes a slot and a launch), then the earlier in the list (the larger grid,
// then the smaller snap: the plan closest to the paper's).
AlignedCandidate choose_aligned(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given);

// The same search, kept: each grid's snaps are estimated once however many searches reach that grid (a Planner
// making stream-k plans on several grids of one problem, as sim::choose_strategy does). `plan` carries the request
// arrays (of `problem`), which must outlive it, as must `problem` and `device`; its grid is the one passed.
class AlignedSearch {
public:
    AlignedSearch(const PlanView& plan, const Problem& problem, const DeviceSpec& device);
    ~AlignedSearch();
    AlignedSearch(const AlignedSearch&) = delete;
    AlignedSearch& operator=(const AlignedSearch&) = delete;

    // aligned_candidates and choose_aligned for the plan on `grid` CTAs.
    std::vector<AlignedCandidate> candidates(std::int64_t grid, bool grid_given);
    AlignedCandidate choose(std::int64_t grid, bool grid_given);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace leanattn

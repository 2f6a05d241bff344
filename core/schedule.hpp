// schedule.hpp — a plan: strategy(problem, device) → grid, per-CTA ordered segments, per-output host.
//
// The Schedule owns the two small per-request arrays the walker reads and hands out a PlanView of
// them. Making one is O(batch); stream-k's aligned rule adds its search, O(candidates · grid · log batch)
// (core/stream_k_cost.hpp). Listing its segments (tabulate) is O(grid + outputs).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "device_spec.hpp"
#include "plan_view.hpp"
#include "problem.hpp"
#include "strategy.hpp"
#include "stream_k_cost.hpp"
#include "walker.hpp"

namespace leanattn {

struct PlanOptions {
    Strategy strategy = Strategy::stream_k;
    std::int64_t splits = 0;  // fixed-split: 0 = FlashAttention-2's heuristic; else this many, at most the longest output's LeanTiles
    std::int64_t grid = 0;    // stream-k: 0 = the rule's (paper: min(resident CTAs, I); aligned: its search, docs/planner.md); other values for experiments
    StreamKRule stream_k_rule = StreamKRule::aligned;  // stream-k: where CTA boundaries go (strategy.hpp)
    std::optional<std::int64_t> snap = std::nullopt;  // stream-k, aligned: this snap instead of the cost model's; experiments
};

struct Schedule {
    Strategy strategy = Strategy::stream_k;
    Problem problem;
    DeviceSpec device;
    std::int64_t grid = 0;
    std::int64_t launches = 1;     // fixed-split with s > 1 adds a reduce launch
    std::int64_t total_tiles = 0;
    std::int64_t splits = 1;
    std::int64_t chunk = 0;
    StreamKRule stream_k_rule = StreamKRule::paper;  // stream-k only
    std::int64_t snap = 0;  // stream-k: 0 under the paper's rule; aligned: at most the longest output's LeanTiles
    std::int64_t capacity_max_load = 0;    // PlanView's: set when a live step may drop the snap (snap > 0 and the
    std::int64_t capacity_ideal_load = 0;  // grid resident at once, so the paper's plan is safe to run instead)
    bool one_output_per_cta = false;  // stream-k: CTA g holds exactly output g (plan::one_output_per_cta), found once
    bool narrow_streams = false;  // leanattn's GPU kernel reads K and V with half its warps (narrow_streams_pay)
    std::vector<std::int64_t> request_tiles;   // (batch)
    std::vector<std::int64_t> request_offset;  // (batch + 1)

    PlanView view() const;
    // A host waits for peers inside the launch only under stream-k (fixed-split reduces in a second launch).
    bool fused_reduction() const { return strategy == Strategy::stream_k; }
    // True when no output is ever split, whatever the live lengths (each at most its capacity): no-split, or
    // stream-k whose snap reaches the longest output's LeanTiles. Why lengths cannot break it: a CTA's ideal
    // start lies inside some live output of L ≤ n_max LeanTiles, whose nearest boundary is at most L/2 away.
    // Such a plan's hosts never wait, so its grid may exceed the resident CTAs.
    bool whole_outputs() const;
};

// Throws InputError for a bad problem or option (e.g. --splits with a strategy other than fixed-split), and
// for a plan that could deadlock on `device` (check_coresidency): a plan that exists can run. Its other
// properties are checked by validate_schedule() (the tests and `schedule --check` run it).
Schedule make_schedule(const Problem& problem, const DeviceSpec& device, const PlanOptions& options);

// Plans of one problem on one device, one after another: the problem and device are checked once (the
// constructor throws make_schedule's InputError), the per-request arrays worked out once, and stream-k's aligned
// search keeps each grid it has estimated (AlignedSearch), so a caller making several plans (sim::choose_strategy
// weighs up to 9, four of them stream-k) pays for each grid once. make(o) is make_schedule(problem, device, o).
class Planner {
public:
    Planner(const Problem& problem, const DeviceSpec& device);
    ~Planner();
    Planner(const Planner&) = delete;
    Planner& operator=(const Planner&) = delete;

    Schedule make(const PlanOptions& options);
    std::int64_t longest_output_tiles() const { return n_max_; }  // fixed-split plans at most this many splits

private:
    Problem problem_;
    DeviceSpec device_;
    std::vector<std::int64_t> request_tiles_, request_offset_;  // Schedule's, for every plan
    std::int64_t n_max_ = 0;                                    // the longest output's LeanTiles
    std::unique_ptr<AlignedSearch> search_;                     // made at the first search, over request_*_
};

// Whether leanattn's GPU kernel reads this plan's K and V with 4 of its CTAs' 8 warps instead of all 8 (the planner
// sets Schedule::narrow_streams by it): a plan of one whole output per CTA (no-split's: also fixed-split of one split
// and stream-k of one output per CTA), at head dim 128 in tiles of 2-16 query rows (one warp each) and one tile per
// KV head, on at most 75% of the SMs, and its outputs even enough that their K and V would spread over at least 40%
// of the SMs (the total over the longest). Measured on an H100 (bench/NOTES.md, "v31"): with 8 streams per SM such
// plans drew 3-11% less of HBM than with 4 (Llama-3-8B B=7-12 at 4k, Phi-3-medium B=6-9, Qwen2.5-7B B=16-20: 0.89-0.97x
// the time), while a few long outputs need each CTA's 8 streams (B=4-6: 1.04-1.43x with 4; a ragged batch whose
// longest output holds 2x the mean: 1.27x), and so do row blocks, whose K and V come mostly from L2 (Qwen2.5-7B B=8
// q_len 4, 2 blocks a KV head: 1.47x); at 85% of the SMs or more the two were alike; at head dim 64 4 warps keep too
// few bytes in flight (1.05x at B=8, 8 KV heads, 4k).
bool narrow_streams_pay(const Schedule& plan);

// The CTA → SM mapping used for display and by the CPU executor: round-robin, so the first wave
// places CTA g on SM g mod SMs.
inline std::int64_t sm_of_cta(const Schedule& s, std::int64_t cta) { return cta % s.device.sms; }

}  // namespace leanattn

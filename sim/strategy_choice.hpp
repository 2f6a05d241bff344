// strategy_choice.hpp — `--strategy auto`: the plan a kernel model predicts fastest.
//
// choose_strategy() plans stream-k (the aligned rule), no-split and fixed-split (FlashAttention-2's split count),
// then stream-k with k CTAs on every output at the largest such grid that fits and at k = 16 and 8 (a merge's
// batches of peers, merge_batch_peers), then fixed-split at half the split count and at the count that
// fills the resident CTAs once, then (for at most half as many outputs as resident CTAs) stream-k at the full,
// three-quarter and half grid, and last, for KV heads of 9-16
// rows, stream-k on two 8-row tiles per KV head (half_tile_rows), for KV heads of more than 16 rows each strategy's
// default plan on tiles of 32, 64 and 128 rows (larger_tile_rows), plays each on the simulator under the kernel
// model, and returns the fastest but for margins: a plan replaces the choice so far only when predicted faster by
// its margin: no-split 3% (0.1% where the kernel reads it with half its warps: default_plan_margin; any time where
// stream-k's plan is no-split's own, one whole output per CTA, unless the plan is for a cache's capacity:
// PlannedLengths), fixed-split 5%, a larger tile 10%,
// stream-k with k CTAs on every output 0.1%, on 8-row tiles unless 5% slower (half_tile_margin), half or one wave's
// split count or a stream-k grid at the full, 3/4 or 1/2 grid 10% (strategy_choice.cpp says why). One launch
// is weighed before a second fixed-split count, so that count has to win by its 10%. Each plan's time is its simulated makespan (makespan.hpp: the same number
// simulate() gives) at the problem's lengths, or, for a plan made for a cache's capacity (PlannedLengths), the mean of
// its makespans there and at two draws of ragged live lengths below; paid once when the plan is made, not every step.
//
// What it costs for the problem's lengths (bench_auto_speed, the 100 held-out problems of the H100 sweep, one quiet core
// of a 2-core AMD EPYC): a median of 54 us (92 on the H100 machine's Xeon; 68-73 while the full, 3/4 and 1/2 grids were
// weighed for every problem and fixed-split's doubled split count at all; 0.6 ms before the weighing was bounded);
// for a capacity, each plan at three sets of lengths,
// 0.17 ms (90th percentile 0.34 ms; 0.21-0.25 and 0.38-0.42 ms before, 0.42-0.46 and 1.0 ms while every plan made for a
// capacity was played in full). A plan that cannot win is not made at all where a bound that
// needs no plan rules it out (MakespanModel::lower_bound_ns: the K and V any plan reads, on that many CTAs; for a
// capacity the mean of that bound at each set of lengths), else played only until a sound lower bound of its makespan
// (for a capacity: of the mean, set by set) rules it out, or not at all (Weighing below): the choice and its predicted
// time are those of playing every plan in full.
// What remains is the winner's play, stream-k's search (its grids are searched once for all stream-k candidates:
// core's Planner) and the losers' plays up to their bounds.
#pragma once

#include <cstdint>
#include <vector>

#include "core/schedule.hpp"
#include "kernel_model.hpp"

namespace leanattn::sim {

// What lengths the plan will run at: the problem's own (`leanattn cuda bench`, a report), or any up to them (a plan made
// for a cache's capacity, DecodePlan's, whose steps run at the live lengths). For a capacity each plan is weighed by
// the mean of its simulated times at the capacity and at two draws of ragged_lengths below it (the steps core's
// live_schedule derives): the strategies part at ragged live lengths, which a cache goes
// through far more often than full. Measured on an H100 (bench/gpu/ragged_live.py, every model at B=8 of 4096 and
// B=32 of 2048, live lengths uniform in 1/16-1 of that): at B=8 stream-k ran 12-16% ahead of no-split on 64 SMs (the
// longest requests' CTAs stream alone, with half the warps: narrow_in_flight_fraction) where the two tie at the
// capacity; at B=32 no-split's waves ran 13-35% ahead of stream-k's live walk, which at the capacity they tie with too.
// Evenly spread lengths (a low-discrepancy sequence) hid most of the B=32 gap (5% predicted where random ones give 16%,
// as measured): the draws are random, from a fixed seed.
enum class PlannedLengths { the_problems, up_to_the_problems };

struct StrategyCandidate {
    PlanOptions options;
    std::int64_t grid = 0;
    std::int64_t splits = 1;  // the plan's (fixed-split: the heuristic's count when options.splits is 0)
    double predicted_us = 0.0;  // its simulated makespan, or (not simulated) a lower bound that ruled it out
    bool simulated = true;      // false: played only until a bound showed it could not beat the choice (makespan_below)
    std::int64_t tile_rows = 0;  // the problem's query rows per output tile it was planned with; 0: the problem's own
    double margin = 0.0;         // the share of the choice so far's time it had to be faster by to replace it (beats)
};

struct StrategyChoice {
    PlanOptions options;                       // what to plan with: the chosen strategy, its splits or grid
    std::int64_t splits = 1;                   // the chosen plan's
    std::int64_t tile_rows = 0;                // plan the problem with this many query rows per output tile; 0: its own
    double predicted_us = 0.0;                 // its simulated time (for a capacity: the mean over the lengths, PlannedLengths)
    PlannedLengths planned = PlannedLengths::the_problems;  // the lengths it was weighed for
    std::vector<StrategyCandidate> candidates;  // every plan weighed, in the order above
    // The chosen plan itself, as weighed: made with `options` for the problem (its tile rows `tile_rows` where set) on
    // device_for_kernel(device, kernel). A caller planning on that same device takes it instead of planning again
    // (stream-k's is the aligned rule's search, a third of the choice's time).
    Schedule plan;
};

// The rule every candidate is weighed by: a plan weighed later is chosen over the choice so far when it is
// cheaper by `margin` of its time (simpler_plan_margin: ties go to the plan weighed first).
inline constexpr double simpler_plan_margin = 1e-3;
inline constexpr double no_split_margin = 0.03;     // no-split over stream-k (the aligned rule's)
inline constexpr double fixed_split_margin = 0.05;  // FlashAttention-2's split count over the choice so far
inline bool beats(double candidate_us, double chosen_us, double margin) { return candidate_us < chosen_us * (1.0 - margin); }

// The three default plans (each strategy at its default parameters) in the order they are weighed, with their
// margins: choose_strategy weighs them so, and `calibrate --check` applies the same rule to measured runs.
struct DefaultPlan {
    Strategy strategy;
    double margin;
};
inline constexpr DefaultPlan default_plans[3] = {
    {Strategy::stream_k, simpler_plan_margin}, {Strategy::no_split, no_split_margin}, {Strategy::fixed_split, fixed_split_margin}};
// The margin `plan` (the default plan of d's strategy) must beat the choice so far by: d's, but the tie's for no-split read
// with half the kernel's warps (Schedule::narrow_streams). no_split_margin stands for the kernel models' 3-5% errors
// where no-split on part of the SMs comes close to stream-k; read with half the warps such plans are predicted within
// 1.5% (17 shapes on an H100: memory_model.hpp), and ran 1.5-5.5% faster than stream-k on the model shapes that take
// them (Llama-3-8B, Phi-3-medium, Llama-3.1-405B at B=8 4k; bench/NOTES.md, "v31").
inline double default_plan_margin(const DefaultPlan& d, const Schedule& plan) {
    return d.strategy == Strategy::no_split && plan.narrow_streams ? simpler_plan_margin : d.margin;
}

// A plan whose one launch is no-split's, CTA for CTA: fixed-split of one split, stream-k of one whole output per CTA
// (both walk as no-split: cta_program.cpp, and on the GPU too: core/live_plan.hpp). Its makespan is no-split's, and
// timed beside no-split it is the same work timed twice.
bool runs_as_no_split(const Schedule& plan);

// How the candidates are weighed. Both give the same choice and the same predicted time (its plan's simulated
// makespan); `bounded` spends far less host time on plans that lose.
enum class Weighing {
    bounded,    // a plan that loses is played only until a bound shows that it cannot beat the choice so far, or not
                // at all (makespan_below): its candidate then holds that bound, not simulated. A plan that is
                // no-split's very plan (fixed-split of one split, stream-k of one output per CTA) takes its time.
    every_plan  // every candidate played to its end: the reference the tests hold `bounded` to
};

// Query rows per output tile of auto's last candidate, for KV heads of 9-16 rows whose caller left tile_rows at its
// default: stream-k on two 8-row tiles per KV head, the second block's K and V mostly from L2 (its rows' softmax is
// half a 16-row tile's). The kernel models over-predict these plans (by 10-19% on the H100, against 2-5% for 16-row
// tiles): Llama-3.1-405B at one request of 16k tokens ran 9% faster on 8-row tiles where the model of the time
// predicted 1.6%, and the refit with the idle SMs' bandwidth term predicts it 0.7% slower. So such a plan is taken
// unless predicted slower by more than half_tile_margin (a margin in its favour, below the bias measured).
inline constexpr std::int64_t half_tile_rows = 8;
// Peers' partials a merge loads at once (the kernel's batch in merge_partials, cuda/decode_device.cuh): each batch is an L2 round trip, so a
// merge's time steps up every this many contributors, and auto weighs 8 and 16 CTAs on every output.
inline constexpr std::int64_t merge_batch_peers = 8;
inline constexpr double half_tile_margin = -0.05;
// The larger tiles auto weighs for a KV head of more than 16 rows: 32, 64 and 128 rows, each while it holds fewer
// row blocks than half its rows would (t / 2 < rows) and the GPU kernels compute it (largest_gpu_tile_rows); none at
// head dim 64, whose kernel computes larger tiles slowly (strategy_choice.cpp).
std::vector<std::int64_t> larger_tile_rows(const Problem& problem);
// The margin a larger tile must beat a plan of 16-row tiles by: 10%, as every parameter the default plans did not
// choose (larger tiles among themselves: 0.1%). Measured on an H100 over 31 model shapes of 20-128 rows per KV head
// (bench/results/raw/gpu-2026-11-27-large-tiles and -large-tiles-auto), the best plan at any tile ran 0.91x the best
// at 16 rows (0.64-0.69x at Qwen2.5-32B B=1 q_len 8 and Llama-3.1-405B B=32 q_len 8), but the kernel models misjudge
// stream-k over row blocks (they predict it 20-27% fast): a larger tile taken wherever predicted faster at all ran
// auto at 0.936x its time on 16-row tiles (steps of run(); host-lengths 0.938x), slower by more than 3% on 6 (8)
// shapes, up to 1.19x; on this margin 0.924x (0.925x), slower on 2 (4), up to 1.19x (1.07x), within 3% of the best
// plan measured on 29 (24) of 31 where 16-row tiles were on 16 (14). The kernel models have aged the L2 since
// (KernelModel::reread_lag_mb), which predicts stream-k over row blocks far better; under them auto ran 0.995x its time
// under the models before on those 31 problems, none slower beyond 3% (bench/results/raw/gpu-2026-11-27-lag-auto). The
// margin stays for what no term models: a larger tile's team of warps and its barriers (re-weighed there at 5%, seven
// picks move, three of them slower by 13-16%).
inline constexpr double larger_tile_margin = 0.10;


// No-split's margin over stream-k for a capacity (no_split_margin's 3% stands for near-ties at the problem's lengths).
// Weighed with ragged lengths, the model puts no-split 1.5-2.5% ahead of stream-k on B=32 GQA shapes where the GPU ran
// it 9-26% ahead (bench/gpu/ragged_live.py, three draws each): at 3% auto kept stream-k on 11 of 40 shapes there and
// ran 1.033x the best strategy per shape, at 1% 1.001x, with no shape of B=8 moved (stream-k 12-20% ahead there).
inline constexpr double capacity_no_split_margin = 0.01;

// Live lengths a plan for a capacity is also weighed at: request b at (1/16 + 15/16 · u) of its capacity (at least
// q_len), u uniform in [0, 1) from a fixed generator seeded with `draw`.
std::vector<std::int64_t> ragged_lengths(const Problem& problem, std::uint64_t draw);

// At most how many plans choose_strategy weighs for `problem` on `planned` (device_for_kernel's; a device of more CTAs
// per SM gives a bound at least as large): what an estimate of its cost counts (app::auto_choice_cost), and what the
// tests hold every choice to. Kept beside choose_strategy: a candidate added there is counted here.
std::int64_t most_candidates(const Problem& problem, const DeviceSpec& planned);

// `device` is the GPU's (its CTAs per SM are replaced by the kernel's); `base` carries options the caller
// fixed (the stream-k rule); its strategy and splits are the ones chosen.
// `vary_parameters` false weighs the three default plans only (FlashAttention-2's split count, the aligned
// rule's grid); so does a `base` that fixes the grid.
StrategyChoice choose_strategy(const Problem& problem, const DeviceSpec& device, const KernelModel& kernel, std::int64_t bytes_per_element,
                               const PlanOptions& base = {}, bool vary_parameters = true, Weighing weighing = Weighing::bounded,
                               PlannedLengths lengths = PlannedLengths::the_problems);

}  // namespace leanattn::sim

#include "strategy_choice.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/cost_estimate.hpp"
#include "core/live_plan.hpp"
#include "core/walker.hpp"
#include "makespan.hpp"

namespace leanattn::sim {

namespace {

// The kernel's makespan model on `device`, kept per thread between choices: the memory law's table and its bounds
// cost more than weighing a small problem's plans.
const MakespanModel& makespan_model(const KernelModel& kernel, const DeviceSpec& device) {
    thread_local std::unique_ptr<MakespanModel> model;
    if (model == nullptr || !model->models(kernel, device)) model = std::make_unique<MakespanModel>(kernel, device);
    return *model;
}

// What choose_strategy reads of a default plan once it is weighed (the plan itself may have become the choice's).
struct PlanShape {
    std::int64_t grid = 0, splits = 1, total_tiles = 0, outputs = 0;
};

// Weighs plans one after another by choose_strategy's rule. A plan that cannot beat the choice so far by its margin
// is played only until a bound shows it (MakespanModel::makespan_below).
class Weigher {
public:
    Weigher(const Problem& problem, const DeviceSpec& planned, const KernelModel& kernel, std::int64_t bytes_per_element, const PlanOptions& base,
            Weighing weighing, PlannedLengths lengths)
        : model_(makespan_model(kernel, planned)), planned_(planned), planner_(problem, planned), bytes_(bytes_per_element), base_(base), weighing_(weighing),
          lengths_(lengths), kv_bytes_(static_cast<double>(problem.kv_bytes(bytes_per_element))), outputs_(problem.outputs()) {
        if (lengths_ == PlannedLengths::up_to_the_problems) {
            ragged_ = {ragged_lengths(problem, 1), ragged_lengths(problem, 2)};
            for (const std::vector<std::int64_t>& live : ragged_) {
                Problem at = problem;
                at.ctx = live;
                ragged_kv_bytes_.push_back(static_cast<double>(at.kv_bytes(bytes_per_element)));
            }
        }
        choice_.planned = lengths_;
    }

    // Weighs the default plan of d's strategy by its margin (default_plan_margin); returns its shape.
    PlanShape weigh_default(const DefaultPlan& d) {
        const PlanOptions o = options(d.strategy, 0, 0);
        Schedule plan = planner_.make(o);
        const PlanShape shape{plan.grid, plan.splits, plan.total_tiles, plan::outputs(plan.view())};
        const double margin = for_capacity() && d.strategy == Strategy::no_split ? capacity_no_split_margin : default_plan_margin(d, plan);
        consider(std::move(plan), o, margin, 0);
        return shape;
    }

    // Weighs one plan of the problem. `bounded`: lower_bound_ns was checked already and did not rule it out.
    void weigh(Strategy strategy, std::int64_t splits, std::int64_t grid, double margin, bool bounded = false) {
        const PlanOptions o = options(strategy, splits, grid);
        consider(planner_.make(o), o, margin, 0, bounded);
    }

    // Weighs the plan of `strategy` at `splits` or `grid` (the parameters a default plan did not choose) unless no plan
    // of so many CTAs could beat the choice so far by `margin`: then it holds that bound, not simulated, and is never
    // made (MakespanModel::lower_bound_ns: the K and V every plan reads, on at most that many SMs). Most such plans
    // lose on large problems, where making one (stream-k's search at a grid) costs more than weighing it.
    void weigh_unless_bounded(Strategy strategy, std::int64_t splits, std::int64_t grid, double margin) {
        if (weighing_ == Weighing::bounded && !choice_.candidates.empty()) {
            const std::int64_t planned_splits = std::min(splits, planner_.longest_output_tiles());  // as the plan will have (fixed-split)
            const std::int64_t ctas = strategy == Strategy::fixed_split ? outputs_ * planned_splits : grid;
            // For a capacity, the mean of the bounds at each set of lengths bounds the mean of the makespans.
            double least = model_.lower_bound_ns(kv_bytes_, ctas);
            for (const double bytes : ragged_kv_bytes_) least += model_.lower_bound_ns(bytes, ctas);
            least /= static_cast<double>(1 + ragged_kv_bytes_.size());
            if (least >= limit(margin)) {
                StrategyCandidate candidate{options(strategy, splits, grid), strategy == Strategy::stream_k ? grid : ctas,
                                            strategy == Strategy::fixed_split ? planned_splits : 1};
                candidate.predicted_us = least / 1e3;
                candidate.simulated = false;
                candidate.margin = margin;
                choice_.candidates.push_back(candidate);
                return;
            }
        }
        weigh(strategy, splits, grid, margin, weighing_ == Weighing::bounded && !choice_.candidates.empty());
    }

    // Weighs `strategy`'s default plan of the problem cut into output tiles of `tile_rows` query rows.
    void weigh_tile_rows(const Problem& problem, std::int64_t tile_rows, Strategy strategy, double margin) {
        Problem cut = problem;
        cut.tile_rows = tile_rows;
        PlanOptions o = base_;
        o.strategy = strategy;
        o.splits = 0;
        o.grid = 0;
        consider(make_schedule(cut, planned_, o), o, margin, tile_rows);
    }

    StrategyChoice take() { return std::move(choice_); }
    std::int64_t longest_output_tiles() const { return planner_.longest_output_tiles(); }
    std::int64_t chosen_tile_rows() const { return choice_.tile_rows; }  // the choice so far's (0: the problem's own)

private:
    PlanOptions options(Strategy strategy, std::int64_t splits, std::int64_t grid) const {
        PlanOptions o = base_;
        o.strategy = strategy;
        o.splits = splits;
        o.grid = grid;
        return o;
    }

    // Takes the plan: kept as the choice's if it becomes the choice (moved, not copied: this runs for every candidate).
    void consider(Schedule plan, const PlanOptions& o, double margin, std::int64_t tile_rows, bool bounded = false) {
        StrategyCandidate candidate{o, plan.grid, plan.splits};
        candidate.tile_rows = tile_rows;
        candidate.margin = margin;
        const bool same_as_choice = tile_rows == 0 && o.strategy == Strategy::no_split && choice_runs_as_no_split_;
        if (for_capacity()) {
            capacity_mean(plan, margin, candidate);
        } else if (same_as_choice) {
            candidate.predicted_us = choice_.predicted_us;  // the choice so far is this very plan, run as stream-k
        } else if (choice_.candidates.empty() || weighing_ == Weighing::every_plan) {
            candidate.predicted_us = model_.makespan_ns(plan, bytes_) / 1e3;
        } else if (tile_rows == 0 && runs_as_no_split(plan) && no_split_us_ > 0.0) {
            candidate.predicted_us = no_split_us_;  // the very plan no-split is
        } else if (const double least = bounded ? 0.0 : model_.lower_bound_ns(kv_bytes_, plan.grid); least >= limit(margin)) {
            candidate.predicted_us = least / 1e3;  // ruled out before its CTAs' programs are built
            candidate.simulated = false;
        } else {
            const BoundedMakespan t = model_.makespan_below(plan, bytes_, limit(margin));
            candidate.predicted_us = t.ns / 1e3;
            candidate.simulated = t.simulated;
        }
        if (tile_rows == 0 && o.strategy == Strategy::no_split && candidate.simulated && !for_capacity()) no_split_us_ = candidate.predicted_us;
        choice_.candidates.push_back(candidate);
        // No-split's plan run as stream-k (one whole output per CTA) is no-split's in the model; on an H100 no-split's own
        // kernel path ran it as fast (0.99-1.00x in `cuda bench`) or faster (1.20x on a ragged batch of 384 such CTAs,
        // the calibration's training sweep), never slower beyond noise; so no-split takes it.
        const bool takes_same_plan = same_as_choice && !for_capacity();  // for a capacity the two are weighed apart
        if (choice_.candidates.size() == 1 || takes_same_plan || (candidate.simulated && beats(candidate.predicted_us, choice_.predicted_us, margin))) {
            choice_runs_as_no_split_ = tile_rows == 0 && o.strategy == Strategy::stream_k && runs_as_no_split(plan);
            choice_.options = o;
            choice_.plan = std::move(plan);
            choice_.splits = candidate.splits;
            choice_.tile_rows = tile_rows;
            choice_.predicted_us = candidate.predicted_us;
        }
    }

    bool for_capacity() const { return lengths_ == PlannedLengths::up_to_the_problems; }

    // For a capacity: the mean of the plan's makespans at the capacity and at each draw of live lengths (at live lengths
    // the plans no-split shares at the capacity part, so no-split's is never borrowed). A plan weighed after the first is
    // played set by set only until its makespans so far, with the plan-free bounds of the sets not played yet, show
    // that the mean cannot beat the choice: it then holds that bound of the mean, not simulated.
    void capacity_mean(const Schedule& plan, double margin, StrategyCandidate& candidate) const {
        const std::size_t sets = 1 + ragged_.size();
        const bool may_stop = weighing_ == Weighing::bounded && !choice_.candidates.empty();
        std::vector<double> bound(sets, 0.0);
        double rest = 0.0;  // the bounds of the sets not played yet
        if (may_stop) {
            bound[0] = model_.lower_bound_ns(kv_bytes_, plan.grid);
            for (std::size_t k = 1; k < sets; ++k) bound[k] = model_.lower_bound_ns(ragged_kv_bytes_[k - 1], plan.grid);
            for (const double b : bound) rest += b;
        }
        const double total_limit = limit(margin) * static_cast<double>(sets);
        double ns = 0.0;
        for (std::size_t k = 0; k < sets; ++k) {
            rest -= bound[k];
            const Schedule live = k == 0 ? Schedule{} : live_schedule(plan, ragged_[k - 1]);
            const Schedule& step = k == 0 ? plan : live;
            const BoundedMakespan t = may_stop ? model_.makespan_below(step, bytes_, total_limit - ns - rest) : BoundedMakespan{model_.makespan_ns(step, bytes_), true};
            ns += t.ns;
            if (!t.simulated) {
                candidate.predicted_us = (ns + rest) / static_cast<double>(sets) / 1e3;
                candidate.simulated = false;
                return;
            }
        }
        candidate.predicted_us = ns / static_cast<double>(sets) / 1e3;
    }

    // beats() asks us < chosen · (1 − margin); a bound reaching this (a hair above, for the rounding of ns to us)
    // rules that out.
    double limit(double margin) const { return choice_.predicted_us * (1.0 - margin) * 1e3 * (1.0 + 1e-12); }

    const MakespanModel& model_;
    DeviceSpec planned_;
    Planner planner_;  // stream-k's grids searched once for all its plans
    std::int64_t bytes_;
    PlanOptions base_;
    Weighing weighing_;
    PlannedLengths lengths_;
    std::vector<std::vector<std::int64_t>> ragged_;  // for a capacity: the live lengths each plan is also played at
    std::vector<double> ragged_kv_bytes_;            // and the K and V read at them
    StrategyChoice choice_;
    double kv_bytes_;           // the problem's K and V: what every plan reads at least
    std::int64_t outputs_;      // the problem's output tiles
    double no_split_us_ = 0.0;  // no-split's simulated time once weighed (0: not yet, or ruled out by a bound)
    bool choice_runs_as_no_split_ = false;  // the choice so far is stream-k of one whole output per CTA
};

}  // namespace

std::vector<std::int64_t> ragged_lengths(const Problem& problem, std::uint64_t draw) {
    std::vector<std::int64_t> live(problem.ctx.size());
    std::uint64_t state = draw * 0x9E3779B97F4A7C15ull;
    for (std::size_t b = 0; b < live.size(); ++b) {
        // splitmix64: the same draws on every platform, unlike the standard library's distributions
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
        const double share = 1.0 / 16.0 + 15.0 / 16.0 * u;
        const auto at = static_cast<std::int64_t>(std::ceil(share * static_cast<double>(problem.ctx[b])));
        live[b] = std::clamp(at, problem.q_len, problem.ctx[b]);
    }
    return live;
}

std::vector<std::int64_t> larger_tile_rows(const Problem& problem) {
    std::vector<std::int64_t> rows;
    // At head dim 64 a tile of more than 16 rows is a team of one-warp row tiles, each of whose warps computes every
    // block of the tile's tokens in turn: slower than 16-row blocks that re-read (Falcon-7B at B=8, q_len 4: 37.2 us on
    // a larger tile auto took against 31.7, bench/results/raw/gpu-2026-11-27-large-tiles-validation), and the kernel
    // models, fitted on 16-row tiles, do not see it.
    if (problem.head_dim == 64) return rows;
    for (std::int64_t t = 2 * default_tile_rows; t <= largest_gpu_tile_rows(problem.head_dim) && t / 2 < problem.rows(); t *= 2) rows.push_back(t);
    return rows;
}

bool runs_as_no_split(const Schedule& plan) {
    return (plan.strategy == Strategy::fixed_split && plan.splits == 1) || (plan.strategy == Strategy::stream_k && plan.one_output_per_cta);
}

std::int64_t most_candidates(const Problem& problem, const DeviceSpec& planned) {
    PlanOptions fixed;
    fixed.strategy = Strategy::fixed_split;
    const PlanSize sizes = plan_size(problem, planned, fixed);  // the outputs, FlashAttention-2's split count
    const std::int64_t slots = planned.resident_ctas();
    std::int64_t n = 3;                                          // the default plans
    if (sizes.outputs < slots) n += 3 + 1;                       // k, 16 and 8 CTAs on every output; one wave's splits
    if (sizes.splits >= 4) n += 1;                               // half the split count
    if (2 * sizes.outputs <= slots) n += 3;                      // the full, 3/4 and 1/2 grids
    if (problem.tile_rows == 0 && problem.rows() > half_tile_rows && problem.rows() <= default_tile_rows) n += 1;  // 8-row tiles
    if (problem.tile_rows == 0) n += 3 * static_cast<std::int64_t>(larger_tile_rows(problem).size());           // larger tiles
    return n;
}

StrategyChoice choose_strategy(const Problem& problem, const DeviceSpec& device, const KernelModel& kernel, std::int64_t bytes_per_element,
                               const PlanOptions& base, bool vary_parameters, Weighing weighing, PlannedLengths lengths) {
    const DeviceSpec planned = device_for_kernel(device, kernel);
    Weigher w(problem, planned, kernel, bytes_per_element, base, weighing, lengths);
    // Stream-k (the aligned rule) is weighed first; no-split replaces it only where predicted 3% faster, fixed-split
    // (FlashAttention-2's count) 5%. The kernel model errs by 3-5% (median) just where these plans come close, and
    // which way a near-tie falls depends on the shapes: ordered simpler-first at 0.1%, the v22 fit's default plans
    // were within 3% of the best measured on 139 of 160 training shapes and 102 of the 160 shapes of the models
    // table (the shapes users decode: B=8 GQA shapes went to no-split on half the SMs, 8% behind stream-k); with
    // stream-k first and these margins, 132 and 156 (chosen on those two sets; the held-out sweep, checked after:
    // 86 of 100 against 89). bench/NOTES.md, "The suite on v22, the refit and auto's rule".
    constexpr double tie = simpler_plan_margin;
    PlanShape stream_k;
    std::int64_t heuristic = 1;
    for (const DefaultPlan& d : default_plans) {
        const PlanShape plan = w.weigh_default(d);
        if (d.strategy == Strategy::fixed_split) heuristic = plan.splits;
        if (d.strategy == Strategy::stream_k) stream_k = plan;
    }
    const std::int64_t slots = planned.resident_ctas();
    const std::int64_t outputs = stream_k.outputs;
    // k CTAs on every output (the largest multiple of the outputs below the slots, k >= 2; the full grid keeps
    // its 10% rule below): no CTA restarts on a second output, each host merges k − 1 partials. Weighed like a
    // default plan (0.1%): measured on an H100, grid 128 beat the aligned rule's 132 by 6% on 32 outputs of
    // 8-16k tokens where the model predicted 1% (bench/results/raw/gpu-2026-11-24-v19-grids), and auto's new
    // choices ran 0.72-1.00x the time of its old ones (bench/results/raw/gpu-2026-11-24-whole-grid).
    const bool vary_grid = vary_parameters && base.grid == 0;
    std::int64_t whole = outputs > 0 ? slots / outputs * outputs : 0;
    if (vary_grid && whole >= 2 * outputs && whole < slots && whole != stream_k.grid && whole <= stream_k.total_tiles) w.weigh_unless_bounded(Strategy::stream_k, 0, whole, tie);
    else whole = 0;  // not weighed
    // With few outputs the largest k is large, and a merge of k partials costs a round trip per merge_batch_peers
    // of them (the kernel loads peers' partials 8 at a time): 16 and 8 CTAs on every output are weighed as well, on the
    // same 0.1%. Measured on an H100 (bench/results/raw/gpu-2026-11-26-contributors): Falcon-7B at one request of 16k
    // tokens (5 outputs) ran 14.5 us at 16 CTAs per output against 15.5 at 26 (the largest k) as host-lengths steps.
    std::int64_t merge_sized[2] = {0, 0};
    for (int i = 0; i < 2 && vary_grid; ++i) {
        const std::int64_t grid = (2 - i) * merge_batch_peers * outputs;
        if (grid >= 2 * outputs && grid < (whole > 0 ? whole : slots) && grid != stream_k.grid && grid <= stream_k.total_tiles) {
            w.weigh_unless_bounded(Strategy::stream_k, 0, grid, tie);
            merge_sized[i] = grid;
        }
    }
    // Half FlashAttention-2's split count, weighed after the three default plans, is taken only where the model
    // predicts it 10% ahead of the best of those, as the other grids below: on kernel v20 the model preferred half the
    // splits by 1-5% on everyday B=1 and B=8 GQA shapes where the H100 ran them 7-15% slower than stream-k
    // (bench/results/raw/gpu-2026-11-26-v20-suite and -v20-models-auto). Double the count was weighed too until it
    // was found chosen nowhere: 0 of 576 times over 787 measured problems; without it no choice moves on any measured
    // sweep in the repository (bench/NOTES.md, "auto's dead candidates").
    if (vary_parameters && heuristic >= 4) w.weigh_unless_bounded(Strategy::fixed_split, heuristic / 2, 0, 0.10);
    // The split count that fills the resident CTAs once (one wave, no second): FlashAttention-2's count aims at waves
    // of the SMs, which for a few long outputs means several waves of short splits and a long reduction; measured on
    // an H100, Falcon-7B at one request of 16k tokens (5 outputs) ran 14.5 us at 16 splits against 22.5 at the
    // heuristic's 64 and 17.5 for stream-k, where the host-lengths model predicted 15.0, 22.1 and 18.5
    // (bench/results/raw/gpu-2026-11-26-auto-host-model). Taken on the same 10% as half the count.
    // (At most the longest output's LeanTiles, as the plan will have it: a count clamped onto the heuristic's is that very plan.)
    const std::int64_t one_wave = outputs > 0 ? std::min<std::int64_t>({slots / outputs, 128, w.longest_output_tiles()}) : 0;
    if (vary_parameters && one_wave >= 2 && one_wave != heuristic && one_wave != heuristic / 2)
        w.weigh_unless_bounded(Strategy::fixed_split, one_wave, 0, 0.10);
    if (!vary_parameters || base.grid != 0) return w.take();
    // The aligned rule picks stream-k's grid with the planner's cost model (the device file's timing), not with
    // this kernel model. Other grids are weighed too, and one is taken only where the model predicts 10% or
    // more: measured on an H100, the model's preferred grid won 1.11-1.34x where it predicted 1.11-1.31x
    // (MQA shapes), and lost up to 5% where it predicted 3-7% (bench/results/raw/gpu-2026-11-24-grid-check).
    // Only for problems of at most half as many outputs as resident CTAs: since auto weighs k CTAs on every output
    // (above), these grids win nowhere else. Over the 1,070 problems of nine measured sweeps (the calibration's, the
    // large-tile ones, the grid check; bench_auto_choices), each weighed four ways (tile rows given or left, lengths or a
    // capacity), under either H100 model, they won only for Falcon-7B with 40 and 16 outputs (host-lengths model), and
    // weighing them there alone changes no choice (nor on any measured sweep in the repository: bench/auto_choices_all.sh,
    // 173,896 choices); weighing them for every problem cost auto a seventh of its host time.
    if (2 * outputs <= slots) {
        for (const std::int64_t grid : {slots, slots * 3 / 4, slots / 2}) {
            if (grid >= 1 && grid != stream_k.grid && grid != whole && grid != merge_sized[0] && grid != merge_sized[1] && grid <= stream_k.total_tiles)
                w.weigh_unless_bounded(Strategy::stream_k, 0, grid, 0.10);
        }
    }
    // KV heads of 9-16 rows as two 8-row tiles (half_tile_rows says why, half_tile_margin at what margin), unless the caller chose
    // the tile's rows.
    if (problem.tile_rows == 0 && problem.rows() > half_tile_rows && problem.rows() <= default_tile_rows)
        w.weigh_tile_rows(problem, half_tile_rows, Strategy::stream_k, half_tile_margin);
    // KV heads of more than 16 rows on larger tiles (larger_tile_rows), each strategy's default plan: the first to
    // replace a plan of 16-row tiles by larger_tile_margin, then any by 0.1% (the larger tiles among themselves). A
    // 16-row block reads its KV head's K and V again, and stream-k's CTAs over row blocks read every block from HBM.
    if (problem.tile_rows == 0) {
        for (const std::int64_t rows : larger_tile_rows(problem)) {
            for (const DefaultPlan& d : default_plans)
                w.weigh_tile_rows(problem, rows, d.strategy, w.chosen_tile_rows() > default_tile_rows ? simpler_plan_margin : larger_tile_margin);
        }
    }
    return w.take();
}

}  // namespace leanattn::sim

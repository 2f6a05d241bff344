#include "schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "input_error.hpp"
#include "live_plan.hpp"
#include "split_heuristic.hpp"
#include "validate.hpp"

namespace leanattn {

bool Schedule::whole_outputs() const {
    if (strategy == Strategy::no_split) return true;
    if (strategy != Strategy::stream_k || stream_k_rule != StreamKRule::aligned) return false;
    const std::int64_t n_max = request_tiles.empty() ? 0 : *std::max_element(request_tiles.begin(), request_tiles.end());
    return snap >= n_max;
}

bool narrow_streams_pay(const Schedule& plan) {
    const Problem& p = plan.problem;
    const bool whole_outputs_per_cta = plan.strategy == Strategy::no_split || (plan.strategy == Strategy::fixed_split && plan.splits == 1) ||
                                       (plan.strategy == Strategy::stream_k && plan.one_output_per_cta);
    const std::int64_t rows = p.block_rows();
    const bool one_warp_tiles = p.head_dim == 128 && rows >= 2 && rows <= 16 && p.row_blocks() == 1;
    if (!whole_outputs_per_cta || !one_warp_tiles || p.ctx.empty() || 4 * plan.grid > 3 * plan.device.sms) return false;
    std::int64_t longest = 0;
    double tokens = 0.0;
    for (const std::int64_t n : p.ctx) longest = std::max(longest, n), tokens += static_cast<double>(n);
    const double spread_over = static_cast<double>(p.outputs_per_request()) * tokens / static_cast<double>(longest);  // outputs' worth of the longest
    return longest > 0 && spread_over >= 0.4 * static_cast<double>(plan.device.sms);
}

PlanView Schedule::view() const {
    PlanView v;
    v.strategy = strategy;
    v.grid = grid;
    v.total_tiles = total_tiles;
    v.batch = problem.batch;
    v.outputs_per_request = problem.outputs_per_request();
    v.splits = splits;
    v.chunk = chunk;
    v.snap = snap;
    v.capacity_max_load = capacity_max_load;
    v.capacity_ideal_load = capacity_ideal_load;
    v.capacity_one_output_per_cta = one_output_per_cta;
    v.request_tiles = request_tiles.data();
    v.request_offset = request_offset.data();
    return v;
}

namespace {

NamedValue named(const char* parameter, std::int64_t value) { return {parameter, std::to_string(value)}; }

// A grid no launch can hold (CUDA's grid.x is below 2^31) is refused before anything grid-sized exists; it
// also keeps every product of a CTA id with a chunk or a LeanTile count inside 64 bits.
constexpr std::int64_t max_grid = (std::int64_t{1} << 31) - 1;

// No GPU resides 2^20 CTAs: beyond that, stream-k plans are neither searched nor walked CTA by CTA at planning.
constexpr std::int64_t max_searched_grid = std::int64_t{1} << 20;

void check_grid_fits(std::int64_t grid, std::vector<NamedValue> blame) {
    if (grid > max_grid) throw InputError(std::move(blame), "the plan would need " + std::to_string(grid) + " CTAs, more than one launch holds (2147483647)");
}

}  // namespace

Planner::Planner(const Problem& problem, const DeviceSpec& device) : problem_(problem), device_(device) {
    check_problem(problem_);
    check_device(device_);
    request_tiles_.resize(problem_.batch);
    request_offset_.resize(problem_.batch + 1);
    for (std::int64_t b = 0; b < problem_.batch; ++b) {
        request_tiles_[b] = problem_.tiles_of_request(b);
        request_offset_[b + 1] = request_offset_[b] + problem_.outputs_per_request() * request_tiles_[b];
        n_max_ = std::max(n_max_, request_tiles_[b]);
    }
}

Planner::~Planner() = default;

Schedule Planner::make(const PlanOptions& options) {
    const Problem& problem = problem_;
    const DeviceSpec& device = device_;
    if (options.splits != 0 && options.strategy != Strategy::fixed_split) {
        throw InputError({{"splits", ""}}, "only applies to the fixed-split strategy");
    }
    if (options.splits < 0) throw InputError({named("splits", options.splits)}, "must be a positive integer");
    if (options.grid != 0 && options.strategy != Strategy::stream_k) {
        throw InputError({{"grid", ""}}, "only applies to the stream-k strategy");
    }
    if (options.grid < 0) throw InputError({named("grid", options.grid)}, "must be a positive integer");
    if (options.snap) {
        if (options.strategy != Strategy::stream_k) throw InputError({{"snap", ""}}, "only applies to the stream-k strategy");
        if (options.stream_k_rule != StreamKRule::aligned) throw InputError({{"snap", ""}}, "only applies to stream_k_rule aligned (the paper's rule is snap 0)");
        if (*options.snap < 0) throw InputError({named("snap", *options.snap)}, "must be a non-negative integer");
    }
    if (options.strategy == Strategy::no_split) check_grid_fits(problem.outputs(), {named("batch", problem.batch), named("kv_heads", problem.kv_heads)});
    // Splits asked for: at most one per LeanTile of the longest output, as stream-k's grid is at most the LeanTiles (more
    // would only take empty CTAs and workspace). Below that a count is kept as asked, as FlashAttention-2 keeps it: 8
    // splits of 10 LeanTiles are chunks of 2, and the last 3 splits of the longest output hold none.
    std::int64_t given_splits = 0;
    if (options.strategy == Strategy::fixed_split && options.splits != 0) {
        given_splits = std::min(options.splits, n_max_);
        std::int64_t grid = 0;
        if (__builtin_mul_overflow(problem.outputs(), given_splits, &grid)) grid = std::numeric_limits<std::int64_t>::max();
        check_grid_fits(grid, {named("splits", options.splits)});
    }

    Schedule s;
    s.strategy = options.strategy;
    s.problem = problem;
    s.device = device;
    s.request_tiles = request_tiles_;
    s.request_offset = request_offset_;
    const std::int64_t n_max = n_max_;
    s.total_tiles = s.request_offset[problem.batch];

    switch (options.strategy) {
        case Strategy::stream_k: {
            s.grid = options.grid != 0 ? std::min(options.grid, s.total_tiles)
                                       : std::min(device.resident_ctas(), s.total_tiles);
            s.stream_k_rule = options.stream_k_rule;
            // No GPU resides 2^20 CTAs; a device file that claims more gets the paper's plan, unsearched.
            if (options.stream_k_rule == StreamKRule::paper || (!options.snap && s.grid > max_searched_grid)) break;
            if (options.snap) {
                s.snap = std::min(*options.snap, n_max);  // beyond n_max every start lands on a boundary already
            } else {
                if (search_ == nullptr) {
                    PlanView arrays = s.view();  // the search keeps the planner's arrays, which outlive this plan
                    arrays.request_tiles = request_tiles_.data();
                    arrays.request_offset = request_offset_.data();
                    search_ = std::make_unique<AlignedSearch>(arrays, problem_, device_);
                }
                const AlignedCandidate choice = search_->choose(s.grid, options.grid != 0);
                s.grid = choice.grid;
                s.snap = choice.snap;
            }
            // A live step whose lengths differ from these may unbalance the snapped plan far more than the cost
            // model accepted here (a cache of capacity N, one request at N and the rest short: whole outputs
            // leave the long request's outputs to one CTA each). It may then run the paper's plan instead, which
            // splits outputs: only safe when every CTA is resident at once.
            if (s.snap > 0 && s.grid <= device.resident_ctas()) {
                const PlanView v = s.view();
                s.capacity_max_load = plan::stream_k_max_load(v);
                s.capacity_ideal_load = plan::stream_k_ideal_max_load(v);
            }
            break;
        }
        case Strategy::fixed_split: {
            if (given_splits != 0) {
                s.splits = given_splits;
            } else {
                const std::int64_t row_blocks = (problem.rows() + 63) / 64;  // FlashAttention-2's own blocks of 64 rows
                s.splits = fa2_num_splits(problem.batch * problem.kv_heads * row_blocks, 2 * device.sms, n_max);
            }
            s.chunk = (n_max - 1) / s.splits + 1;  // ⌈n_max / splits⌉ without the sum that could overflow
            s.grid = problem.outputs() * s.splits;  // within max_grid: checked above, or the heuristic's ≤ 128 splits
            s.launches = s.splits > 1 ? 2 : 1;
            break;
        }
        case Strategy::no_split:
            s.grid = problem.outputs();
            break;
    }
    check_grid_fits(s.grid, {named("batch", problem.batch), named("kv_heads", problem.kv_heads)});
    s.one_output_per_cta = s.grid <= max_searched_grid && plan::one_output_per_cta(s.view());
    s.narrow_streams = narrow_streams_pay(s);
    try {
        check_coresidency(s);  // a plan that could deadlock is never handed out
    } catch (const InputError& e) {
        if (options.grid != 0) throw InputError({named("grid", options.grid)}, e.reason());  // the grid asked for, not the one clamped to the LeanTiles
        throw;
    }
    return s;
}

Schedule make_schedule(const Problem& problem, const DeviceSpec& device, const PlanOptions& options) { return Planner(problem, device).make(options); }

}  // namespace leanattn

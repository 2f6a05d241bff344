#include "schedule.hpp"

#include <algorithm>
#include <string>

#include "input_error.hpp"
#include "live_plan.hpp"
#include "split_heuristic.hpp"
#include "stream_k_cost.hpp"
#include "validate.hpp"

namespace leanattn {

bool Schedule::whole_outputs() const {
    if (strategy == Strategy::no_split) return true;
    if (strategy != Strategy::stream_k || stream_k_rule != StreamKRule::aligned) return false;
    const std::int64_t n_max = request_tiles.empty() ? 0 : *std::max_element(request_tiles.begin(), request_tiles.end());
    return snap >= n_max;
}

PlanView Schedule::view() const {
    PlanView v;
    v.strategy = strategy;
    v.grid = grid;
    v.total_tiles = total_tiles;
    v.batch = problem.batch;
    v.kv_heads = problem.kv_heads;
    v.splits = splits;
    v.chunk = chunk;
    v.snap = snap;
    v.capacity_max_load = capacity_max_load;
    v.capacity_ideal_load = capacity_ideal_load;
    v.request_tiles = request_tiles.data();
    v.request_offset = request_offset.data();
    return v;
}

namespace {

void check_device(const DeviceSpec& d) {
    if (d.sms <= 0) throw InputError("device " + d.name + ": sms " + std::to_string(d.sms), "must be a positive integer");
    if (d.ctas_per_sm <= 0) throw InputError("--ctas-per-sm " + std::to_string(d.ctas_per_sm), "must be a positive integer");
    if (d.sms > (std::int64_t{1} << 31) || d.ctas_per_sm > 1024) {
        throw InputError("device " + d.name, "SM count or CTAs per SM is beyond any GPU (sms ≤ 2^31, ctas_per_sm ≤ 1024)");
    }
}

}  // namespace

Schedule make_schedule(const Problem& problem, const DeviceSpec& device, const PlanOptions& options) {
    check_problem(problem);
    check_device(device);
    if (options.splits != 0 && options.strategy != Strategy::fixed_split) {
        throw InputError("--splits", "only applies to --strategy fixed-split");
    }
    if (options.splits < 0) throw InputError("--splits " + std::to_string(options.splits), "must be a positive integer");
    if (options.grid != 0 && options.strategy != Strategy::stream_k) {
        throw InputError("--grid", "only applies to --strategy stream-k");
    }
    if (options.grid < 0) throw InputError("--grid " + std::to_string(options.grid), "must be a positive integer");
    if (options.snap) {
        if (options.strategy != Strategy::stream_k) throw InputError("--snap", "only applies to --strategy stream-k");
        if (options.stream_k_rule != StreamKRule::aligned) throw InputError("--snap", "only applies to --stream-k-rule aligned (the paper's rule is snap 0)");
        if (*options.snap < 0) throw InputError("--snap " + std::to_string(*options.snap), "must be a non-negative integer");
    }

    Schedule s;
    s.strategy = options.strategy;
    s.problem = problem;
    s.device = device;
    s.request_tiles.resize(problem.batch);
    s.request_offset.resize(problem.batch + 1);
    std::int64_t n_max = 0;
    for (std::int64_t b = 0; b < problem.batch; ++b) {
        s.request_tiles[b] = problem.tiles_of_request(b);
        s.request_offset[b + 1] = s.request_offset[b] + problem.kv_heads * s.request_tiles[b];
        n_max = std::max(n_max, s.request_tiles[b]);
    }
    s.total_tiles = s.request_offset[problem.batch];

    switch (options.strategy) {
        case Strategy::stream_k: {
            s.grid = options.grid != 0 ? std::min(options.grid, s.total_tiles)
                                       : std::min(device.resident_ctas(), s.total_tiles);
            s.stream_k_rule = options.stream_k_rule;
            // No GPU resides 2^20 CTAs; a device file that claims more gets the paper's plan, unsearched.
            constexpr std::int64_t max_searched_grid = std::int64_t{1} << 20;
            if (options.stream_k_rule == StreamKRule::paper || (!options.snap && s.grid > max_searched_grid)) break;
            if (options.snap) {
                s.snap = std::min(*options.snap, n_max);  // beyond n_max every start lands on a boundary already
            } else {
                const AlignedCandidate choice = choose_aligned(s.view(), problem, device, options.grid != 0);
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
            if (options.splits != 0) {
                s.splits = options.splits;
            } else {
                const std::int64_t row_blocks = (problem.q_len * problem.group() + 63) / 64;
                s.splits = fa2_num_splits(problem.batch * problem.kv_heads * row_blocks, 2 * device.sms, n_max);
            }
            s.chunk = (n_max + s.splits - 1) / s.splits;
            s.grid = problem.outputs() * s.splits;
            s.launches = s.splits > 1 ? 2 : 1;
            break;
        }
        case Strategy::no_split:
            s.grid = problem.outputs();
            break;
    }
    check_coresidency(s);  // a plan that could deadlock is never handed out
    return s;
}

}  // namespace leanattn

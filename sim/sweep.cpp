#include "sweep.hpp"

#include <algorithm>

#include "core/input_error.hpp"

namespace leanattn::sim {

const SimResult* SweepRow::find(Strategy s) const {
    for (const SimResult& r : results) {
        if (r.strategy == s) return &r;
    }
    return nullptr;
}

double SweepRow::speedup_over(Strategy baseline) const {
    const SimResult* lean = find(Strategy::stream_k);
    const SimResult* other = find(baseline);
    return lean && other ? other->makespan_ns / lean->makespan_ns : 0.0;
}

double SweepRow::speedup_over_chosen() const {
    const SimResult* lean = find(Strategy::stream_k);
    return lean && chosen ? chosen->result.makespan_ns / lean->makespan_ns : 0.0;
}

Problem vary_problem(const Problem& base, const std::string& vary, std::int64_t value) {
    Problem p = base;
    const std::string what = "--vary " + vary + " value " + std::to_string(value);
    if (vary == "ctx") {
        p.ctx.assign(static_cast<std::size_t>(p.batch), value);
    } else if (vary == "batch") {
        if (value > (std::int64_t{1} << 20)) throw InputError(what, "at most 1048576 requests in a sweep");
        const std::int64_t longest = *std::max_element(base.ctx.begin(), base.ctx.end());
        p.batch = value;
        p.ctx.assign(static_cast<std::size_t>(value), longest);
    } else if (vary == "heads") {
        const std::int64_t group = base.group();
        if (value % group != 0) throw InputError(what, "must be a multiple of the GQA group " + std::to_string(group));
        p.q_heads = value;
        p.kv_heads = value / group;
    } else if (vary == "ragged") {
        if (value > 100) throw InputError(what, "a mean/max context ratio is a percentage in 1..100");
        const std::int64_t longest = *std::max_element(base.ctx.begin(), base.ctx.end());
        if (p.batch == 1 && value != 100) throw InputError(what, "one request is never ragged; give --batch 2 or more");
        // Request 0 holds the longest context; the rest share (ratio · batch − 1) · longest equally.
        const double rest = static_cast<double>(value) / 100.0 * static_cast<double>(p.batch * longest) - static_cast<double>(longest);
        const std::int64_t each = p.batch == 1 ? longest : static_cast<std::int64_t>(rest / static_cast<double>(p.batch - 1) + 0.5);
        if (each < p.q_len) throw InputError(what, "below 1/batch: the other requests would have no context");
        p.ctx.assign(static_cast<std::size_t>(p.batch), std::min(each, longest));
        p.ctx[0] = longest;
    } else {
        throw InputError("--vary " + vary, "expected ctx, heads, batch or ragged");
    }
    check_problem(p);
    return p;
}

std::vector<SweepRow> sweep(const Problem& base, const DeviceSpec& device, const PlanOptions& plan, const std::vector<Strategy>& strategies,
                            const std::string& vary, const std::vector<std::int64_t>& values, const SimOptions& options,
                            const std::function<void(std::size_t, std::size_t)>& on_row, const KernelModel* auto_kernel) {
    std::vector<SweepRow> rows;
    rows.reserve(values.size());
    for (std::int64_t value : values) {
        const Problem p = vary_problem(base, vary, value);
        rows.push_back({value, p, simulate_strategies(p, device, plan, strategies, options), std::nullopt});
        if (auto_kernel != nullptr) {
            StrategyChoice choice = choose_strategy(p, device, *auto_kernel, options.bytes_per_element, plan);
            const SimResult result = simulate(choice.plan, options);
            choice.plan = Schedule{};  // a row keeps numbers, not plans
            rows.back().chosen = SweepChoice{std::move(choice), result};
        }
        if (on_row) on_row(rows.size(), values.size());
    }
    return rows;
}

}  // namespace leanattn::sim

#include "auto_strategy.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/saturating.hpp"
#include "data_catalog.hpp"

namespace leanattn::app {

sim::KernelModel kernel_for_device(const DeviceSpec& device, StepLengths lengths) {
    const bool host = lengths == StepLengths::host && !device.kernel_model_host_lengths.empty();
    const std::string& name = host ? device.kernel_model_host_lengths : device.kernel_model;
    if (name.empty()) return sim::paper_kernel(device);
    try {
        return load_kernel(name, device);
    } catch (const InputError& e) {  // the device file named it, not a --kernel flag: say so
        throw InputError("device " + device.name + ", its \"" + (host ? "kernel_host_lengths" : "kernel") + "\" " + name, e.reason());
    }
}

Cost auto_choice_cost(const Problem& problem, const DeviceSpec& device, sim::PlannedLengths planned) {
    const std::int64_t candidates = sim::most_candidates(problem, device);  // each at most as costly as the worst plan below
    PlanOptions fixed;
    fixed.strategy = Strategy::fixed_split;
    const PlanSize sizes = plan_size(problem, device, fixed);  // FlashAttention-2's split count, the outputs
    const std::int64_t slots = device.resident_ctas();
    const bool few_outputs = sizes.outputs < slots;
    const bool halves = problem.tile_rows == 0 && problem.rows() > sim::half_tile_rows && problem.rows() <= default_tile_rows;
    // The worst plan any of them is (two estimates: this runs before every choice): on 8-row tiles where auto weighs
    // those (twice the outputs; larger tiles have fewer), stream-k on every slot, or fixed-split at the most splits it
    // weighs (the heuristic's, or the count that fills the slots once); no-split's plan is smaller than either.
    Problem widest = problem;
    if (halves) widest.tile_rows = sim::half_tile_rows;
    const std::int64_t one_wave = few_outputs ? std::clamp<std::int64_t>(slots / std::max<std::int64_t>(sizes.outputs, 1), 1, 128) : 1;
    PlanOptions stream_k;
    fixed.splits = std::max(sizes.splits, one_wave);
    const Cost a = simulation_cost(widest, device, stream_k, false), b = simulation_cost(widest, device, fixed, false);
    const std::int64_t bytes = std::max(a.bytes, b.bytes), work = std::max(a.work, b.work);
    const int plays = planned == sim::PlannedLengths::up_to_the_problems ? 3 : 1;  // for a capacity, also two sets of live lengths
    // Blamed on the problem's size, which the caller gave (not on a candidate's grid or splits, which it did not).
    const std::vector<NamedValue> blame = {{"batch", std::to_string(problem.batch)}, {"kv_heads", std::to_string(problem.kv_heads)}};
    Cost total;
    total.add({"the candidate plans auto weighs, one after another", bytes, saturating::mul(work, candidates, plays), blame});
    total.add({"the plan auto keeps while it weighs the others", saturating::mul(bytes, plays), 0, blame});
    return total;
}

AutoChoice choose_auto(const Problem& problem, const DeviceSpec& device, std::int64_t bytes_per_element, const PlanOptions& base,
                       const CostLimits& limits, bool keep_device_ctas, StepLengths lengths, sim::PlannedLengths planned) {
    check_cost(auto_choice_cost(problem, device, planned), limits);  // before it plans anything of the problem's size
    AutoChoice a;
    a.device = device.name;
    a.kernel = kernel_for_device(device, lengths);
    if (keep_device_ctas) a.kernel.ctas_per_sm = 0;  // device_for_kernel then leaves the device's
    a.choice = sim::choose_strategy(problem, device, a.kernel, bytes_per_element, base, true, sim::Weighing::bounded, planned);
    return a;
}

namespace {

std::string label(const PlanOptions& o, std::int64_t splits, std::int64_t tile_rows) {
    std::string s(strategy_name(o.strategy));
    if (o.strategy == Strategy::fixed_split) s += " (" + std::to_string(splits) + " splits)";
    if (o.strategy == Strategy::stream_k && o.grid > 0) s += " (grid " + std::to_string(o.grid) + ")";
    if (tile_rows > 0) s += " (tiles of " + std::to_string(tile_rows) + " rows)";
    return s;
}

}  // namespace

std::string describe_auto(const AutoChoice& a) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << "auto: " << label(a.choice.options, a.choice.splits, a.choice.tile_rows) << ", predicted " << a.choice.predicted_us << " us under kernel model "
        << a.kernel.name << " on " << a.device;
    if (a.choice.planned == sim::PlannedLengths::up_to_the_problems) out << ", each plan's mean at the capacity and two draws of ragged lengths below it";
    out << " (";
    for (std::size_t i = 0; i < a.choice.candidates.size(); ++i) {
        const sim::StrategyCandidate& c = a.choice.candidates[i];
        out << (i ? ", " : "") << label(c.options, c.splits, c.tile_rows) << (c.simulated ? " " : " >") << c.predicted_us;  // >: a bound ruled it out
    }
    out << ")";
    return out.str();
}

nlohmann::ordered_json auto_choice_json(const AutoChoice& a) {
    nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
    for (const sim::StrategyCandidate& c : a.choice.candidates) {
        candidates.push_back({{"strategy", std::string(strategy_name(c.options.strategy))},
                              {"grid", c.grid},
                              {"splits", c.splits},
                              {"tile_rows", c.tile_rows},
                              {"predicted_us", c.predicted_us},
                              {"simulated", c.simulated},
                              {"margin", c.margin}});
    }
    return {{"device", a.device},
            {"kernel", a.kernel.name},
            {"planned_for", a.choice.planned == sim::PlannedLengths::up_to_the_problems ? "capacity" : "lengths"},
            {"predicted_us", a.choice.predicted_us},
            {"candidates", std::move(candidates)}};
}

}  // namespace leanattn::app

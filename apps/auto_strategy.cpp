#include "auto_strategy.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/saturating.hpp"
#include "data_catalog.hpp"

namespace leanattn::app {

sim::KernelModel kernel_for_device(const DeviceSpec& device, StepLengths lengths) {
    if (lengths == StepLengths::host && !device.kernel_model_host_lengths.empty()) return load_kernel(device.kernel_model_host_lengths, device);
    return device.kernel_model.empty() ? sim::paper_kernel(device) : load_kernel(device.kernel_model, device);
}

Cost auto_choice_cost(const Problem& problem, const DeviceSpec& device, sim::PlannedLengths planned) {
    const int plays = planned == sim::PlannedLengths::up_to_the_problems ? 3 : 1;  // for a capacity, also two sets of live lengths
    Cost weighing;
    std::int64_t largest = 0;  // the costliest candidate's memory: it may be the plan kept while the others are weighed
    std::vector<NamedValue> blame;
    const auto weigh = [&](const Problem& p, Strategy strategy, std::int64_t grid, std::int64_t splits) {
        PlanOptions options;
        options.strategy = strategy;
        options.grid = grid;
        options.splits = splits;
        const Cost one = simulation_cost(p, device, options, false);
        for (int i = 0; i < plays; ++i) weighing.then(one);
        if (one.bytes > largest) largest = one.bytes, blame = one.most_bytes.blame;
    };
    for (const Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) weigh(problem, s, 0, 0);
    PlanOptions fixed;
    fixed.strategy = Strategy::fixed_split;
    const PlanSize sizes = plan_size(problem, device, fixed);
    const std::int64_t slots = device.resident_ctas();
    if (sizes.splits >= 4) weigh(problem, Strategy::fixed_split, 0, sizes.splits / 2);  // half the heuristic's count
    if (sizes.outputs < slots) {
        // k, 16 and 8 CTAs on every output and the full, 3/4 and 1/2 grids (stream-k on at most the slots), and the split
        // count that fills the slots once.
        for (int i = 0; i < 6; ++i) weigh(problem, Strategy::stream_k, slots, 0);
        weigh(problem, Strategy::fixed_split, 0, std::clamp<std::int64_t>(slots / std::max<std::int64_t>(sizes.outputs, 1), 1, 128));
    }
    if (problem.tile_rows == 0 && problem.rows() > sim::half_tile_rows && problem.rows() <= default_tile_rows) {
        Problem halves = problem;
        halves.tile_rows = sim::half_tile_rows;
        weigh(halves, Strategy::stream_k, 0, 0);
    }
    if (problem.tile_rows == 0) {
        for (const std::int64_t rows : sim::larger_tile_rows(problem)) {
            Problem larger = problem;
            larger.tile_rows = rows;
            for (const Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) weigh(larger, s, 0, 0);
        }
    }
    return weighing.add({"the plan auto keeps while it weighs the others", saturating::mul(largest, plays), 0, blame});
}

AutoChoice choose_auto(const Problem& problem, const DeviceSpec& device, std::int64_t bytes_per_element, const PlanOptions& base,
                       bool keep_device_ctas, StepLengths lengths, sim::PlannedLengths planned) {
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

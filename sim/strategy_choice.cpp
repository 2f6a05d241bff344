#include "strategy_choice.hpp"

#include "simulation.hpp"

namespace leanattn::sim {

StrategyChoice choose_strategy(const Problem& problem, const DeviceSpec& device, const KernelModel& kernel, std::int64_t bytes_per_element,
                               const PlanOptions& base, bool vary_splits) {
    const DeviceSpec planned = device_for_kernel(device, kernel);
    StrategyChoice choice;
    const auto weigh = [&](Strategy strategy, std::int64_t splits) {
        PlanOptions o = base;
        o.strategy = strategy;
        o.splits = splits;
        const Schedule plan = make_schedule(problem, planned, o);
        SimOptions so;
        so.bytes_per_element = bytes_per_element;
        so.kernel = &kernel;
        const double us = simulate(plan, so).makespan_ns / 1e3;
        choice.candidates.push_back({o, plan.grid, plan.splits, us});
        // No-split is weighed first: a later plan must be cheaper by 0.1% to be chosen (simpler wins ties).
        if (choice.candidates.size() == 1 || us < choice.predicted_us * (1.0 - 1e-3)) {
            choice.options = o;
            choice.splits = plan.splits;
            choice.predicted_us = us;
        }
        return plan.splits;
    };
    weigh(Strategy::no_split, 0);
    const std::int64_t heuristic = weigh(Strategy::fixed_split, 0);
    if (vary_splits && heuristic >= 4) weigh(Strategy::fixed_split, heuristic / 2);
    if (vary_splits && heuristic >= 2 && heuristic * 2 <= 128) weigh(Strategy::fixed_split, heuristic * 2);
    weigh(Strategy::stream_k, 0);
    return choice;
}

}  // namespace leanattn::sim

// sweep.hpp — the strategies simulated over a range of one problem dimension (ctx, heads, batch, or how
// ragged the batch is): the rows behind `leanattn sweep`'s curves.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "simulation.hpp"
#include "strategy_choice.hpp"

namespace leanattn::sim {

// What `--strategy auto` chose at one value: choose_strategy at that problem's lengths (its candidates kept, its plan
// dropped once simulated), and the chosen plan's result under the kernel model it was weighed with.
struct SweepChoice {
    StrategyChoice choice;
    SimResult result;
};

struct SweepRow {
    std::int64_t value = 0;
    Problem problem;
    std::vector<SimResult> results;  // in the order of the strategies asked for
    std::optional<SweepChoice> chosen;  // with an auto kernel (sweep()): auto's choice at this value
    const SimResult* find(Strategy s) const;
    // baseline makespan / stream-k makespan; 0 when either was not simulated.
    double speedup_over(Strategy baseline) const;
    // auto's plan's makespan / stream-k's; 0 without either.
    double speedup_over_chosen() const;
};

// The base problem with dimension `vary` (ctx | heads | batch | ragged) set to `value`. ragged: request 0
// keeps the longest context M (the base problem's largest), the other batch − 1 requests share the rest
// equally, so that mean / max = value %. heads keeps the base problem's GQA group (kv-heads = heads /
// group). InputError when the value does not fit (e.g. a ragged ratio below 1 / batch).
Problem vary_problem(const Problem& base, const std::string& vary, std::int64_t value);

// Simulates every value (calling `on_row(done, total)` after each). With `auto_kernel`, auto also chooses at each
// value (choose_strategy under that model, `plan` the options it keeps) and its plan is simulated under options.kernel.
std::vector<SweepRow> sweep(const Problem& base, const DeviceSpec& device, const PlanOptions& plan, const std::vector<Strategy>& strategies,
                            const std::string& vary, const std::vector<std::int64_t>& values, const SimOptions& options,
                            const std::function<void(std::size_t, std::size_t)>& on_row = {}, const KernelModel* auto_kernel = nullptr);

}  // namespace leanattn::sim

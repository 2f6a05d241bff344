// sweep.hpp — the strategies simulated over a range of one problem dimension (ctx, heads, batch, or how
// ragged the batch is): the rows behind `leanattn sweep`'s curves.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simulation.hpp"

namespace leanattn::sim {

struct SweepRow {
    std::int64_t value = 0;
    Problem problem;
    std::vector<SimResult> results;  // in the order of the strategies asked for
    const SimResult* find(Strategy s) const;
    // baseline makespan / stream-k makespan; 0 when either was not simulated.
    double speedup_over(Strategy baseline) const;
};

// The base problem with dimension `vary` (ctx | heads | batch | ragged) set to `value`. ragged: request 0
// keeps the longest context M (the base problem's largest), the other batch − 1 requests share the rest
// equally, so that mean / max = value %. heads keeps the base problem's GQA group (kv-heads = heads /
// group). InputError when the value does not fit (e.g. a ragged ratio below 1 / batch).
Problem vary_problem(const Problem& base, const std::string& vary, std::int64_t value);

// Simulates every value (calling `on_row(done, total)` after each).
std::vector<SweepRow> sweep(const Problem& base, const DeviceSpec& device, const PlanOptions& plan, const std::vector<Strategy>& strategies,
                            const std::string& vary, const std::vector<std::int64_t>& values, const SimOptions& options,
                            const std::function<void(std::size_t, std::size_t)>& on_row = {});

}  // namespace leanattn::sim

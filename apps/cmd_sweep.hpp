// cmd_sweep.hpp — `leanattn sweep`: simulate the strategies over a range of one problem dimension.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "problem_options.hpp"
#include "sim/simulation.hpp"

namespace leanattn::app {

struct SweepOptions {
    ResolvedProblem input;               // the base problem; --vary replaces one of its dimensions
    std::string vary = "ctx";            // ctx | heads | batch | ragged
    std::vector<std::int64_t> values;    // tokens, heads, requests, or mean/max context in percent
    std::string dtype = "fp16";
    bool progress = true;                // a progress bar on stderr once the sweep has run a second
};

struct SweepRow {
    std::int64_t value = 0;
    Problem problem;
    std::vector<sim::SimResult> results;  // in the order of input.strategies
    const sim::SimResult* find(Strategy s) const;
    // baseline makespan / stream-k makespan; 0 when either was not simulated.
    double speedup_over(Strategy baseline) const;
};

// The base problem with dimension `vary` set to `value`. ragged: request 0 keeps the longest context M
// (the base problem's largest), the other batch − 1 requests share the rest equally, so that mean / max
// = value %. heads keeps the base problem's GQA group (kv-heads = heads / group). InputError when the
// value does not fit (e.g. a ragged ratio below 1 / batch).
Problem vary_problem(const Problem& base, const std::string& vary, std::int64_t value);

// "1k" = 1024, "1M" = 1048576; plain integers otherwise.
std::vector<std::int64_t> parse_sweep_values(const std::string& text);

// Simulates every value (calling `on_row(done, total)` after each) without writing anything.
std::vector<SweepRow> sweep_rows(const SweepOptions& options, const std::function<void(std::size_t, std::size_t)>& on_row = {});

int run_sweep(const SweepOptions& options, std::ostream& out);

}  // namespace leanattn::app

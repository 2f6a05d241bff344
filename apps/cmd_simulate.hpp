// cmd_simulate.hpp — `leanattn simulate`: the three strategies played out on a model of the device.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "problem_options.hpp"
#include "sim/simulation.hpp"

namespace leanattn::app {

struct SimulateOptions {
    ResolvedProblem input;          // --strategy all (the default) simulates stream-k, fixed-split and no-split
    std::string dtype = "fp16";     // fp16 | bf16 | fp32: the K/V element size
};

// Plans and simulates each strategy of `input`, in its order, with per-SM timelines when asked.
std::vector<sim::SimResult> simulate_strategies(const ResolvedProblem& input, std::int64_t bytes_per_element, bool record_timeline);

// "fp16"/"bf16" → 2, "fp32" → 4; InputError naming --dtype otherwise.
std::int64_t dtype_bytes(const std::string& dtype);

// Writes the chosen format (text table, JSON, SVG timelines, or an HTML page with both).
int run_simulate(const SimulateOptions& options, std::ostream& out);

}  // namespace leanattn::app

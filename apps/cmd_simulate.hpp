// cmd_simulate.hpp — `leanattn simulate`: the three strategies played out on a model of the device.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "problem_options.hpp"
#include "sim/simulation.hpp"

namespace leanattn::app {

struct SimulateOptions {
    ResolvedProblem input;          // --strategy all (the default) simulates stream-k, fixed-split and no-split
    DType dtype = DType::fp16;      // the K/V element size
    std::optional<sim::KernelModel> kernel;  // the kernel that runs the plans; none: the paper's, from the device file
};

// Writes the chosen format (text table, JSON, SVG timelines, or an HTML page with both).
int run_simulate(const SimulateOptions& options, std::ostream& out);

}  // namespace leanattn::app

// cmd_sweep.hpp — `leanattn sweep`: simulate the strategies over a range of one problem dimension.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "problem_options.hpp"
#include <optional>

#include "sim/kernel_model.hpp"
#include "sim/sweep.hpp"

namespace leanattn::app {

struct SweepOptions {
    ResolvedProblem input;               // the base problem; --vary replaces one of its dimensions
    std::string vary = "ctx";            // ctx | heads | batch | ragged
    std::vector<std::int64_t> values;    // tokens, heads, requests, or mean/max context in percent
    DType dtype = DType::fp16;
    bool progress = true;                // a progress bar on stderr once the sweep has run a second
    std::optional<sim::KernelModel> kernel;  // the kernel that runs the plans; none: the paper's, from the device file
    std::optional<sim::KernelModel> auto_kernel;  // --strategy auto: the model auto weighs the plans of each value with
};

// "1k" = 1024, "1M" = 1048576; plain integers otherwise.
std::vector<std::int64_t> parse_sweep_values(const std::string& text);

int run_sweep(const SweepOptions& options, std::ostream& out);

}  // namespace leanattn::app

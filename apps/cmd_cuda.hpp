// cmd_cuda.hpp — `leanattn cuda validate|bench`: the decode kernels on this machine's GPU, through
// cuda/harness.hpp (the CLI only parses flags and prints text or JSON).
#pragma once

#include <ostream>
#include <string>

#include "cuda/harness.hpp"
#include "problem_options.hpp"

namespace leanattn::app {

struct CudaOptions {
    cuda::HarnessCase harness;  // problem, dtype, layout, block size, seed, plan options, strategies
    std::string format = "text";
    int repeat = 100;           // bench: graph replays per strategy (the median is reported)
    std::string trace_path;     // bench: write a per-CTA trace (docs/trace.md) here
    std::string device_file;    // the device file the plans' timing keys came from (--device, or this GPU's)
};

// Exit 1 when any strategy is over tolerance or leaves a non-finite value.
int run_cuda_validate(const CudaOptions& options, std::ostream& out);
int run_cuda_bench(const CudaOptions& options, std::ostream& out);

}  // namespace leanattn::app

// cmd_cpu.hpp — `leanattn cpu`: run plans for real on this CPU and check them against float64.
#pragma once

#include <ostream>

#include "core/dtype.hpp"
#include "core/tensor_layout.hpp"
#include "problem_options.hpp"

namespace leanattn::app {

struct CpuOptions {
    ResolvedProblem input;
    DType dtype = DType::fp16;
    CacheLayout layout = CacheLayout::padded;
    std::int64_t block_size = 16;  // paged layout: tokens per cache block
    int threads = 0;          // 0: all cores
    std::uint64_t seed = 1;
    int repeat = 3;           // timed runs per strategy (the best is reported)
    bool measure_read = true; // measure this machine's plain read bandwidth in the same run
    double read_bytes = 0;    // its buffer; 0: cpu::read_buffer_bytes()
};

// What run_cpu will allocate and do (tensors, reference, plans, workspaces, the read buffer, the
// arithmetic of every run), for the limits check before anything is allocated.
Cost cpu_run_cost(const CpuOptions& options);

// Exit 1 when any strategy is over tolerance or leaves a non-finite value.
int run_cpu(const CpuOptions& options, std::ostream& out);

}  // namespace leanattn::app

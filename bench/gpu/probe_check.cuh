// probe_check.cuh — CHECK(call) for the single-file GPU probes of bench/gpu (stream_probe.cu, param_probe.cu): a CUDA
// runtime call that fails prints where and why, and exits 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        cudaError_t e = (x);                                                                     \
        if (e != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

// param_probe.cu — what a launch's parameter block costs: the same tiny kernel with 64 bytes, 4 KB and 11 KB of
// `__grid_constant__` parameters (the host-lengths step passes its StepTable, ~11 KB, so), each captured in a CUDA
// graph and timed the way the suite times a step: a GPU-side spin, then events around one replay; median of `reps`.
// Every CTA reads a few bytes of the block (as a CTA reads its own rows of the table), so the parameters are used.
//
// usage (GPU machine): nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/param_probe.cu -o param_probe && ./param_probe [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.cuh"

template <int BYTES>
struct Block {
    unsigned char bytes[BYTES];
};

template <int BYTES>
__global__ void read_params(const __grid_constant__ Block<BYTES> p, unsigned* out) {
    // CTA g reads 16 bytes at its own place in the block, as a CTA of the decode kernel reads its table rows.
    const int at = (blockIdx.x * 16 + threadIdx.x % 16) % BYTES;
    if (threadIdx.x < 16) atomicAdd(out, p.bytes[at]);
}

__global__ void spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

template <int BYTES>
void time_block(const char* name, int grid, int reps, unsigned* out, cudaStream_t s) {
    Block<BYTES> p;
    for (int i = 0; i < BYTES; ++i) p.bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    read_params<BYTES><<<grid, 256, 0, s>>>(p, out);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<float> us, back_to_back;
    for (int r = 0; r < reps; ++r) {
        spin<<<1, 1, 0, s>>>(40000);
        CHECK(cudaEventRecord(e0, s));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        us.push_back(ms * 1e3f);
    }
    // Throughput: 20 replays queued behind one spin, their mean.
    for (int r = 0; r < reps / 10; ++r) {
        spin<<<1, 1, 0, s>>>(40000);
        CHECK(cudaEventRecord(e0, s));
        for (int k = 0; k < 20; ++k) CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        back_to_back.push_back(ms * 1e3f / 20);
    }
    std::sort(us.begin(), us.end());
    std::sort(back_to_back.begin(), back_to_back.end());
    std::printf("%-28s grid %4d  one replay %6.2f us (p10 %6.2f, p90 %6.2f)  back to back %6.2f us each\n", name, grid, us[us.size() / 2],
                us[us.size() / 10], us[us.size() * 9 / 10], back_to_back[back_to_back.size() / 2]);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
}

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 300;
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    unsigned* out;
    CHECK(cudaMalloc(&out, 4));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    std::printf("%s: a kernel of 256 threads a CTA, its parameter block of each size, median of %d\n", prop.name, reps);
    for (int round = 0; round < 2; ++round) {
        for (const int grid : {80, 132}) {
            time_block<64>("64 B of parameters", grid, reps, out, s);
            time_block<2048>("2 KB", grid, reps, out, s);
            time_block<4096>("4 KB", grid, reps, out, s);
            time_block<11264>("11 KB (a StepTable's size)", grid, reps, out, s);
        }
    }
    return 0;
}

// smem_probe.cu — what a launch's shared memory costs when the kernel before it used none: the same tiny kernel
// (80 CTAs of 256 threads, each writing and reading its shared memory) with 0 to 214 KB of dynamic shared memory a
// CTA, captured in a CUDA graph and timed the way the suite times a step: the L2 flushed (a memset and a read of
// 256 MB, kernels that use no shared memory), a GPU-side spin, then events around one replay; median of `reps`.
// An SM splits its 256 KB between L1 and shared memory per kernel; a kernel that needs more shared memory than the
// split the kernel before it left has the SM changed over. Variants, each at every size:
//   after flush        as above;
//   after flush, read kernel carveout 100   the flush's read kernel asks for the most shared memory itself, so no
//                                           change-over is left for the timed kernel (whether the change-over is
//                                           what costs);
//   back to back       20 replays queued after one spin, their mean (no other kernel between them).
//
// usage (GPU machine): nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/smem_probe.cu -o smem_probe && ./smem_probe [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.cuh"

__global__ void touch_shared(unsigned* out, int words) {
    extern __shared__ unsigned smem[];
    // Each thread writes a word in every 1 KB of the CTA's shared memory it owns, then the CTA sums a few of them.
    for (int i = threadIdx.x; i < words; i += blockDim.x * 256) smem[i] = i * 2654435761u;
    __syncthreads();
    if (threadIdx.x == 0 && words > 0) atomicAdd(out, smem[(blockIdx.x * 97) % words]);
    if (threadIdx.x == 0 && words == 0) atomicAdd(out, 1u);
}

__global__ void read_all(const uint4* in, long long n, unsigned* out) {
    unsigned acc = 0;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const uint4 v = in[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678u) atomicAdd(out, acc);  // keeps the loads
}

__global__ void spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

struct Flush {
    unsigned char* buffer = nullptr;
    std::size_t bytes = 256u << 20;
    void run(cudaStream_t s, unsigned* out) const {
        CHECK(cudaMemsetAsync(buffer, 0x5A, bytes / 2, s));
        read_all<<<132 * 4, 512, 0, s>>>(reinterpret_cast<const uint4*>(buffer + bytes / 2), static_cast<long long>(bytes / 2 / sizeof(uint4)), out);
    }
};

float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void time_size(int shared_bytes, int reps, const Flush& flush, unsigned* out, cudaStream_t s) {
    CHECK(cudaFuncSetAttribute(touch_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    touch_shared<<<80, 256, shared_bytes, s>>>(out, shared_bytes / 4);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    float result[3];
    for (int variant = 0; variant < 3; ++variant) {
        CHECK(cudaFuncSetAttribute(read_all, cudaFuncAttributePreferredSharedMemoryCarveout, variant == 1 ? 100 : -1));
        std::vector<float> us;
        for (int r = 0; r < (variant == 2 ? reps / 10 : reps); ++r) {
            if (variant < 2) flush.run(s, out);
            spin<<<1, 1, 0, s>>>(40000);
            CHECK(cudaEventRecord(e0, s));
            const int replays = variant == 2 ? 20 : 1;
            for (int k = 0; k < replays; ++k) CHECK(cudaGraphLaunch(exec, s));
            CHECK(cudaEventRecord(e1, s));
            CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            us.push_back(ms * 1e3f / static_cast<float>(replays));
        }
        result[variant] = median(us);
    }
    std::printf("%6d B shared a CTA: after flush %6.2f us  after flush, read kernel carveout 100 %6.2f us  back to back %6.2f us each\n",
                shared_bytes, result[0], result[1], result[2]);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
}

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 300;
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    unsigned* out;
    CHECK(cudaMalloc(&out, 4));
    Flush flush;
    CHECK(cudaMalloc(&flush.buffer, flush.bytes));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    std::printf("%s: 80 CTAs of 256 threads, median of %d (back to back: of %d)\n", prop.name, reps, reps / 10);
    for (int round = 0; round < 2; ++round) {
        for (const int kb : {0, 46, 100, 150, 200, 214}) time_size(kb * 1024, reps, flush, out, s);
    }
    return 0;
}

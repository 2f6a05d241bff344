#include "gpu_tools.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace leanattn::cuda {

namespace {

__device__ inline std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <typename T>
__global__ void fill_random_kernel(T* data, std::int64_t n, std::uint64_t seed) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
        const double u = static_cast<double>(mix(seed * 0x100000001B3ull ^ static_cast<std::uint64_t>(i)) >> 11) * 0x1.0p-53;  // [0,1)
        const float x = static_cast<float>((2.0 * u - 1.0) * 1.7320508075688772);
        if constexpr (std::is_same_v<T, __half>) data[i] = __float2half_rn(x);
        else if constexpr (std::is_same_v<T, __nv_bfloat16>) data[i] = __float2bfloat16_rn(x);
        else data[i] = x;
    }
}

__global__ void empty_kernel() {}

// Reads n 16-byte words through the L2 and keeps nothing: the lines they bring in are clean. The loads stay
// because their XOR decides a store: only when it equals `key`, a run-time value the flush buffer's bytes never
// produce (so the compiler cannot drop the loads, and the sink is never written in practice).
__global__ void read_kernel(const uint4* data, std::int64_t n, unsigned key, unsigned* sink) {
    unsigned acc = 0;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
        const uint4 v = __ldcg(data + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == key) *sink = acc;
}

__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

constexpr unsigned fill_blocks = 1024, fill_threads = 256;

}  // namespace

void fill_random(void* data, std::int64_t n, DType dtype, std::uint64_t seed, cudaStream_t stream) {
    switch (dtype) {
        case DType::fp16: fill_random_kernel<<<fill_blocks, fill_threads, 0, stream>>>(static_cast<__half*>(data), n, seed); break;
        case DType::bf16: fill_random_kernel<<<fill_blocks, fill_threads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), n, seed); break;
        case DType::fp32: fill_random_kernel<<<fill_blocks, fill_threads, 0, stream>>>(static_cast<float*>(data), n, seed); break;
    }
    check(cudaGetLastError(), "fill_random");
}

void poison_nan(void* data, std::size_t bytes, cudaStream_t stream) { check(cudaMemsetAsync(data, 0xFF, bytes, stream), "poison with NaN"); }

void launch_empty_kernel(cudaStream_t stream) {
    empty_kernel<<<1, 1, 0, stream>>>();
    check(cudaGetLastError(), "launch an empty kernel");
}

L2Flusher::L2Flusher() {
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
    scratch_ = DeviceBuffer(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 4 + sizeof(unsigned));  // + the read's sink
    check(cudaMemset(scratch_.get(), 0x5A, scratch_.bytes()), "fill the flush buffer");  // the read half is defined
}

void L2Flusher::flush(cudaStream_t stream) const {
    // Bytes 0x5A: any XOR of 16-byte words of them is 0 or 0x5A5A5A5A, never the key.
    const std::size_t half = (scratch_.bytes() - sizeof(unsigned)) / 2;
    char* const base = scratch_.get<char>();
    check(cudaMemsetAsync(base, 0x5A, half, stream), "flush L2 (write)");
    read_kernel<<<fill_blocks, fill_threads, 0, stream>>>(reinterpret_cast<const uint4*>(base + half), static_cast<std::int64_t>(half / sizeof(uint4)),
                                                          0x9E3779B9u, reinterpret_cast<unsigned*>(base + 2 * half));
    check(cudaGetLastError(), "flush L2 (read)");
    spin_kernel<<<1, 1, 0, stream>>>(flush_spin_cycles);
    check(cudaGetLastError(), "flush L2 (spin)");
}

double measure_copy_gbps(std::size_t bytes) {
    DeviceBuffer a(bytes), b(bytes);
    check(cudaMemset(a.get(), 1, bytes), "init");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    std::vector<float> ms;
    for (int i = 0; i < 12; ++i) {
        check(cudaEventRecord(start), "record");
        check(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "copy");
        check(cudaEventRecord(stop), "record");
        check(cudaEventSynchronize(stop), "sync");
        float t = 0;
        check(cudaEventElapsedTime(&t, start, stop), "elapsed");
        if (i >= 2) ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(ms.begin(), ms.end());
    return 2.0 * static_cast<double>(bytes) / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

}  // namespace leanattn::cuda

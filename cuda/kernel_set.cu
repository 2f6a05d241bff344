#include "kernel_set.hpp"

#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <stdexcept>

#include "decode_device.cuh"
#include "device_buffer.cuh"

namespace leanattn::cuda {

KernelSet kernel_set_fp16(const KernelVariant& variant);  // kernels_fp16.cu
KernelSet kernel_set_bf16(const KernelVariant& variant);  // kernels_bf16.cu

namespace {

constexpr int row_classes = 8;                           // kernel_rows: 1, 2, 4, … 128
constexpr int variant_count = 2 * 4 * row_classes * 2;  // dtype × head_dim × rows × traced
constexpr int cached_devices = 64;            // devices beyond this ordinal are queried every time

// A dense slot per supported variant, or -1.
int variant_index(const KernelVariant& v) {
    const int dtype = v.dtype == DType::fp16 ? 0 : v.dtype == DType::bf16 ? 1 : -1;
    const int dim = v.head_dim == 64 ? 0 : v.head_dim == 96 ? 1 : v.head_dim == 128 ? 2 : v.head_dim == 256 ? 3 : -1;
    int rows = 0;
    while (rows < row_classes && (std::int64_t{1} << rows) != v.rows) ++rows;
    if (dtype < 0 || dim < 0 || rows == row_classes) return -1;
    return ((dtype * 4 + dim) * row_classes + rows) * 2 + (v.trace ? 1 : 0);
}

int current_device() {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    return device;
}

// 0 = not known yet. Two threads racing to fill a slot compute the same value.
std::array<std::array<std::atomic<std::int64_t>, variant_count>, cached_devices> ctas_per_sm_cache;
std::array<std::atomic<std::int64_t>, cached_devices> sms_cache;

std::int64_t prepare(const KernelSet& set) {
    const void* kernel = reinterpret_cast<const void*>(set.decode);
    // The pipeline wants more than the default 48 KB of dynamic shared memory: opt in (per device).
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, decode_shared_bytes()), "allow the decode kernel's shared memory");
    // The others: the same body and shared memory, the same occupancy.
    for (const void* other : {reinterpret_cast<const void*>(set.decode_table), reinterpret_cast<const void*>(set.decode_narrow),
                              reinterpret_cast<const void*>(set.decode_table_narrow), reinterpret_cast<const void*>(set.decode_staged),
                              reinterpret_cast<const void*>(set.decode_staged_narrow)}) {
        if (other != nullptr) check(cudaFuncSetAttribute(other, cudaFuncAttributeMaxDynamicSharedMemorySize, decode_shared_bytes()), "allow a decode kernel's shared memory");
    }
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, decode_threads(), decode_shared_bytes()), "occupancy of the decode kernel");
    return blocks;
}

}  // namespace

std::int64_t kernel_rows(std::int64_t rows) {
    for (std::int64_t k = 1; k <= 128; k *= 2) {
        if (rows <= k) return k;
    }
    return 0;
}

int decode_threads() { return detail::threads; }
int decode_shared_bytes() { return detail::shared_bytes(); }

KernelSet kernel_set(const KernelVariant& variant) {
    switch (variant.dtype) {
        case DType::fp16: return kernel_set_fp16(variant);
        case DType::bf16: return kernel_set_bf16(variant);
        case DType::fp32: break;
    }
    return {};
}

ReadyKernels ready_kernels(const KernelVariant& variant) {
    ReadyKernels ready{kernel_set(variant), 0};
    const int index = variant_index(variant);
    if (ready.set.decode == nullptr || index < 0) throw std::runtime_error("no decode kernel for this variant (check_supported lets it through)");
    const int device = current_device();
    if (device >= cached_devices) {
        ready.ctas_per_sm = prepare(ready.set);
        return ready;
    }
    std::atomic<std::int64_t>& slot = ctas_per_sm_cache[device][index];
    ready.ctas_per_sm = slot.load(std::memory_order_acquire);
    if (ready.ctas_per_sm == 0) {
        ready.ctas_per_sm = prepare(ready.set);
        // A kernel that fits nowhere (0) is not cached: the caller refuses it, and the next call asks again.
        slot.store(ready.ctas_per_sm, std::memory_order_release);
    }
    return ready;
}

std::int64_t current_device_sms() {
    const int device = current_device();
    auto query = [device] {
        int sms = 0;
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
        return static_cast<std::int64_t>(sms);
    };
    if (device >= cached_devices) return query();
    std::int64_t sms = sms_cache[device].load(std::memory_order_acquire);
    if (sms == 0) {
        sms = query();
        sms_cache[device].store(sms, std::memory_order_release);
    }
    return sms;
}

}  // namespace leanattn::cuda

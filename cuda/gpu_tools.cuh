// gpu_tools.cuh — what validating and timing kernels needs on the device: random fills (never zeros),
// NaN poison, an empty launch, an L2 flush, and the measured copy bandwidth. Host API; the kernels live in gpu_tools.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/dtype.hpp"
#include "device_buffer.cuh"

namespace leanattn::cuda {

// Fills n elements with values uniform in [-a, a] (a = √3: unit variance) from a counter-based hash of
// (seed, index): the same seed gives the same tensor on any GPU, fast enough for gigabytes.
void fill_random(void* data, std::int64_t n, DType dtype, std::uint64_t seed, cudaStream_t stream = nullptr);

// Sets every byte to 0xFF: NaN in fp16, bf16 and fp32 alike, so an element a kernel forgot to write can
// never pass a check.
void poison_nan(void* data, std::size_t bytes, cudaStream_t stream = nullptr);

// Enqueues a kernel that does nothing (one CTA of one thread): the floor of any launch's host time.
void launch_empty_kernel(cudaStream_t stream);

// Evicts the L2 as the GPU suite does (bench/gpu/timing.py): writes twice its size, then reads another twice
// its size, so that the L2 holds clean lines (dirty ones would be written back while the timed kernel reads, and
// charge it for the flush: ~7 us a decode, measured on an H100, 2026-11-24), then spins on the GPU for
// flush_spin_cycles so that a timing event enqueued next, and the work after it, are queued before the GPU reaches
// them: the host's launch time stays out.
class L2Flusher {
public:
    static constexpr long long flush_spin_cycles = 40000;
    L2Flusher();
    void flush(cudaStream_t stream) const;

private:
    DeviceBuffer scratch_;
};

// Device-to-device copy bandwidth of `bytes`, counting bytes read plus bytes written (median of 10), GB/s.
double measure_copy_gbps(std::size_t bytes);

}  // namespace leanattn::cuda

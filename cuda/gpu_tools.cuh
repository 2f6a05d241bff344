// gpu_tools.cuh — what validating and timing kernels needs on the device: random fills (never zeros),
// NaN poison, dtype conversion back to float, L2 flush, and the measured copy bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "device_buffer.cuh"
#include "lean_decoder.cuh"

namespace leanattn::cuda {

// Fills n elements with values uniform in [-a, a] (a = √3: unit variance) from a counter-based hash of
// (seed, index): the same seed gives the same tensor on any GPU, fast enough for gigabytes.
void fill_random(void* data, std::int64_t n, DType dtype, std::uint64_t seed);

// Sets every element to NaN, so an element a kernel forgot to write can never pass a check.
void poison_nan(void* data, std::int64_t n, DType dtype);
void poison_nan_f32(float* data, std::int64_t n);

// Copies n device elements of `dtype` to the host as float (exact: every fp16/bf16 value is a float).
std::vector<float> to_host_float(const void* data, std::int64_t n, DType dtype);

std::size_t dtype_bytes(DType dtype);

// Evicts the L2 by writing a buffer larger than it.
class L2Flusher {
public:
    L2Flusher();
    void flush();

private:
    DeviceBuffer scratch_;
};

// Device-to-device copy bandwidth of `bytes`, counting bytes read plus bytes written (median of 10), GB/s.
double measure_copy_gbps(std::size_t bytes);

}  // namespace leanattn::cuda

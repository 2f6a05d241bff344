// device_tensors.hpp — a decode step's tensors, owned on the GPU, in one of the tools' layouts
// (core/tensor_layout.hpp: padded, token-major, paged, ragged; the CPU side builds the very same ones), and
// their copy in host memory with the same strides, for core's float64 reference.
//
//   q, o   (batch, q_len, q_heads, d) dense      lse (batch, q_heads, q_len) fp32
//   K, V   the layout's; seqlens (batch) int32; block_table (batch, max_blocks) int32 when paged;
//          cu_seqlens (batch + 1) int32 when ragged
// q, K and V are filled from the counter-based generator (gpu_tools.cuh: never zeros, the padding included);
// out and lse start poisoned with NaN.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/decode_tensors.hpp"
#include "core/problem.hpp"
#include "core/tensor_layout.hpp"
#include "device_buffer.cuh"

namespace leanattn::cuda {

// Host buffers holding a copy of DeviceTensors, laid out alike; view() points at them.
struct HostTensors {
    TensorLayout layout;
    std::vector<unsigned char> q, k, v, o;
    std::vector<float> lse;
    std::vector<std::int32_t> seqlens, block_table, cu_seqlens;

    DecodeTensors view();
};

class DeviceTensors {
public:
    // The problem's ctx are the capacities (and the first live lengths). `seed` also shuffles the paged
    // layout's block ids. Throws InputError for a layout the problem does not fit (make_tensor_layout).
    DeviceTensors(const Problem& problem, DType dtype, CacheLayout layout, std::int64_t block_size, std::uint64_t seed);

    DecodeTensors view() const;  // device pointers
    const TensorLayout& layout() const { return layout_; }
    const Problem& problem() const { return problem_; }
    CacheLayout cache_layout() const { return cache_layout_; }
    std::int32_t* device_seqlens() const { return seqlens_.get<std::int32_t>(); }

    void poison_outputs(cudaStream_t stream);
    // Copies `lengths` (batch) into the device's cache_seqlens, on `stream`.
    void set_seqlens(const std::vector<std::int32_t>& lengths, cudaStream_t stream);

    // Every tensor copied to the host (synchronous).
    HostTensors to_host() const;
    // q, K, V and cache_seqlens replaced by `host`'s (synchronous; host has this object's layout).
    void upload_inputs(const HostTensors& host);
    // out, lse and cache_seqlens copied into `host` (synchronous): what a run changed, and the lengths it saw.
    void outputs_to_host(HostTensors& host) const;

    // Bytes of K and V a decode step of the problem's lengths reads: each request's own tokens only.
    double kv_bytes_read() const;

private:
    Problem problem_;
    CacheLayout cache_layout_;
    TensorLayout layout_;
    DeviceBuffer q_, k_, v_, o_, lse_, seqlens_, block_table_, cu_seqlens_;
};

}  // namespace leanattn::cuda

// lean_decoder.cu — compile-time dispatch (dtype × head_dim × group) and the LeanDecoder host class.
#include "lean_decoder.cuh"

#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/input_error.hpp"
#include "decode_mma.cuh"
#include "device_buffer.cuh"
#include "decode_simt.cuh"

namespace leanattn::cuda {

namespace {

// Calls f(T{}, integral_constant<D>, integral_constant<ROWS>) for the runtime (dtype, head_dim, group).
template <typename F>
void dispatch(DType dtype, std::int64_t head_dim, std::int64_t group, F&& f) {
    auto by_group = [&](auto type_tag, auto dim_tag) {
        switch (group) {
            case 1: return f(type_tag, dim_tag, std::integral_constant<int, 1>{});
            case 2: return f(type_tag, dim_tag, std::integral_constant<int, 2>{});
            case 4: return f(type_tag, dim_tag, std::integral_constant<int, 4>{});
            case 8: return f(type_tag, dim_tag, std::integral_constant<int, 8>{});
        }
        throw InputError("group " + std::to_string(group), "the CUDA kernels take 1, 2, 4 or 8 query heads per KV head");
    };
    auto by_dim = [&](auto type_tag) {
        if (head_dim == 64) return by_group(type_tag, std::integral_constant<int, 64>{});
        if (head_dim == 128) return by_group(type_tag, std::integral_constant<int, 128>{});
        throw InputError("--head-dim " + std::to_string(head_dim), "the CUDA kernels take head-dim 64 or 128");
    };
    if (dtype == DType::fp16) by_dim(__half{});
    else by_dim(__nv_bfloat16{});
}

using KernelFn = void (*)(DecodeParams);

// One or two query rows per output tile: CUDA cores stream at memory speed. Four or eight: the rows'
// arithmetic would make CUDA cores the bottleneck, so tensor cores take it (decode_mma.cuh).
template <typename T, int D, int ROWS>
KernelFn decode_kernel() {
    KernelFn kernel = nullptr;
    if constexpr (ROWS <= 2) kernel = decode_simt_kernel<T, D, ROWS>;
    else kernel = decode_mma_kernel<T, D, ROWS>;
    // The pipeline wants more than the default 48 KB of dynamic shared memory: opt in once per kernel.
    static const bool allowed = [&] {
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, detail::shared_bytes()), "allow shared memory");
        return true;
    }();
    (void)allowed;
    return kernel;
}

}  // namespace

void check_supported(const Problem& p) {
    if (p.q_len != 1) throw InputError("--q-len " + std::to_string(p.q_len), "the CUDA kernels decode one token per request (q-len 1)");
    if (p.head_dim != 64 && p.head_dim != 128) throw InputError("--head-dim " + std::to_string(p.head_dim), "the CUDA kernels take head-dim 64 or 128");
    const std::int64_t g = p.group();
    if (g != 1 && g != 2 && g != 4 && g != 8) throw InputError("--heads/--kv-heads", "the CUDA kernels take 1, 2, 4 or 8 query heads per KV head");
}

int resident_ctas_per_sm(DType dtype, std::int64_t head_dim, std::int64_t group) {
    int blocks = 0;
    dispatch(dtype, head_dim, group, [&](auto type_tag, auto dim_tag, auto rows_tag) {
        using T = decltype(type_tag);
        constexpr int D = decltype(dim_tag)::value, ROWS = decltype(rows_tag)::value;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, decode_kernel<T, D, ROWS>(), detail::threads, detail::shared_bytes()),
              "occupancy query");
    });
    return blocks;
}

int device_sm_count() {
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    return sms;
}

LeanDecoder::LeanDecoder(const Schedule& schedule, DType dtype) : schedule_(schedule), dtype_(dtype) {
    check_supported(schedule.problem);
    const std::size_t batch = schedule.request_tiles.size();
    check(cudaMalloc(&request_tiles_, batch * sizeof(std::int64_t)), "cudaMalloc request_tiles");
    check(cudaMalloc(&request_offset_, (batch + 1) * sizeof(std::int64_t)), "cudaMalloc request_offset");
    check(cudaMemcpy(request_tiles_, schedule.request_tiles.data(), batch * sizeof(std::int64_t), cudaMemcpyHostToDevice), "copy request_tiles");
    check(cudaMemcpy(request_offset_, schedule.request_offset.data(), (batch + 1) * sizeof(std::int64_t), cudaMemcpyHostToDevice), "copy request_offset");
    const std::int64_t rows = schedule.problem.group();
    const std::size_t slot = static_cast<std::size_t>(rows * schedule.problem.head_dim + 2 * rows);
    check(cudaMalloc(&partials_, static_cast<std::size_t>(schedule.grid) * slot * sizeof(float)), "cudaMalloc partials");
    check(cudaMalloc(&flags_, static_cast<std::size_t>(schedule.grid) * sizeof(int)), "cudaMalloc flags");
    check(cudaMemset(flags_, 0, static_cast<std::size_t>(schedule.grid) * sizeof(int)), "clear flags");
}

LeanDecoder::~LeanDecoder() {
    cudaFree(request_tiles_);
    cudaFree(request_offset_);
    cudaFree(partials_);
    cudaFree(flags_);
}

void LeanDecoder::run(const DecodeTensors& t) {
    DecodeParams p;
    p.plan = schedule_.view();
    p.plan.request_tiles = request_tiles_;
    p.plan.request_offset = request_offset_;
    p.q = t.q, p.k = t.k, p.v = t.v, p.o = t.o, p.lse = t.lse, p.ctx = t.ctx;
    p.max_ctx = t.max_ctx;
    p.tile = schedule_.problem.tile;
    p.group = schedule_.problem.group();
    p.scale_log2 = static_cast<float>(1.0 / std::sqrt(static_cast<double>(schedule_.problem.head_dim)) * 1.4426950408889634);
    p.partials = partials_;
    p.flags = flags_;
    p.epoch = ++epoch_;
    p.fused = schedule_.fused_reduction();
    const auto grid = static_cast<unsigned>(schedule_.grid);
    const auto outputs = static_cast<unsigned>(schedule_.problem.outputs());
    const bool reduce = schedule_.launches > 1;
    dispatch(dtype_, schedule_.problem.head_dim, p.group, [&](auto type_tag, auto dim_tag, auto rows_tag) {
        using T = decltype(type_tag);
        constexpr int D = decltype(dim_tag)::value, ROWS = decltype(rows_tag)::value;
        decode_kernel<T, D, ROWS>()<<<grid, detail::threads, detail::shared_bytes()>>>(p);
        check(cudaGetLastError(), "launch decode kernel");
        if (reduce) {
            split_reduce_kernel<T, D, ROWS><<<outputs, detail::threads>>>(p);
            check(cudaGetLastError(), "launch split_reduce_kernel");
        }
    });
}

}  // namespace leanattn::cuda

// kernel_set.cuh — compile-time dispatch of the decode kernels for one element type: head_dim 64, 96, 128
// or 256 × a row count (kernel_rows: 1, 2, 4, …, 128; 64 at most at head dim 256) × traced or not. One query
// row per output tile (MHA, q_len 1) runs on CUDA cores (decode_simt.cuh): it streams at memory speed. Two or
// more rows go to tensor cores (decode_mma.cuh): with four or eight, CUDA cores would be the bottleneck; with
// two, the CUDA-core kernel kept up with memory but cost ~5 µs more per decode than the tensor-core one
// (H100: intercepts of 20-25 µs against 17-19 µs over a context sweep, bench/NOTES.md v7). Head dim 96 takes
// the tensor-core kernel at every row count: 12 lanes per token do not tile the CUDA-core kernel's warps. Head dim
// 128 at 2-16 rows has a second pair of tensor-core kernels that read K and V with half the warps, for plans with
// narrow streams (core/schedule.hpp: narrow_streams_pay); a template parameter rather than a launch's, since a
// stride computed at run time cost the plans read with every warp 1-3% (kernel v31).
#pragma once

#include "decode_mma.cuh"
#include "decode_simt.cuh"
#include "kernel_set.hpp"
#include "split_reduce.cuh"

namespace leanattn::cuda {

template <typename T, int D, int ROWS, bool Trace>
KernelSet kernel_set_of() {
    KernelSet set;
    if constexpr (ROWS == 1 && D != 96) set.decode = decode_simt_kernel<T, D, ROWS, Trace>;
    else set.decode = decode_mma_kernel<T, D, ROWS, Trace>;
    set.reduce = split_reduce_kernel<T, D>;
    if constexpr (ROWS == 1 && D != 96) set.decode_table = decode_simt_table_kernel<T, D, ROWS, Trace>;
    else set.decode_table = decode_mma_table_kernel<T, D, ROWS, Trace>;
    set.reduce_table = split_reduce_table_kernel<T, D>;
    if constexpr (!Trace) {  // staged steps are not traced
        if constexpr (ROWS == 1 && D != 96) set.decode_staged = decode_simt_staged_kernel<T, D, ROWS>;
        else set.decode_staged = decode_mma_staged_kernel<T, D, ROWS>;
    }
    if constexpr (D == 128 && ROWS >= 2 && ROWS <= 16) {  // core's narrow_streams_pay: only these
        set.decode_narrow = decode_mma_kernel<T, D, ROWS, Trace, true>;
        set.decode_table_narrow = decode_mma_table_kernel<T, D, ROWS, Trace, true>;
        if constexpr (!Trace) set.decode_staged_narrow = decode_mma_staged_kernel<T, D, ROWS, true>;
    }
    return set;
}

template <typename T, int D, bool Trace>
KernelSet kernel_set_by_rows(std::int64_t rows) {
    switch (rows) {
        case 1: return kernel_set_of<T, D, 1, Trace>();
        case 2: return kernel_set_of<T, D, 2, Trace>();
        case 4: return kernel_set_of<T, D, 4, Trace>();
        case 8: return kernel_set_of<T, D, 8, Trace>();
        case 16: return kernel_set_of<T, D, 16, Trace>();
        case 32: return kernel_set_of<T, D, 32, Trace>();
        case 64: return kernel_set_of<T, D, 64, Trace>();
        case 128:
            if constexpr (D != 256) return kernel_set_of<T, D, 128, Trace>();  // 8 tiles × 2 dim slices > 8 warps
            break;
    }
    return {};
}

template <typename T, int D>
KernelSet kernel_set_by_trace(const KernelVariant& v) {
    return v.trace ? kernel_set_by_rows<T, D, true>(v.rows) : kernel_set_by_rows<T, D, false>(v.rows);
}

// The kernels for element type T; {} for a head_dim or row count check_supported refuses.
template <typename T>
KernelSet kernel_set_for(const KernelVariant& v) {
    switch (v.head_dim) {
        case 64: return kernel_set_by_trace<T, 64>(v);
        case 96: return kernel_set_by_trace<T, 96>(v);
        case 128: return kernel_set_by_trace<T, 128>(v);
        case 256: return kernel_set_by_trace<T, 256>(v);
    }
    return {};
}

}  // namespace leanattn::cuda

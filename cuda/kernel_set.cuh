// kernel_set.cuh — compile-time dispatch of the decode kernels for one element type: head_dim 64 or 128 ×
// rows 1, 2, 4, 8 × traced or not. One query row per output tile (MHA) runs on CUDA cores
// (decode_simt.cuh): it streams at memory speed. Two or more rows go to tensor cores (decode_mma.cuh): with
// four or eight, CUDA cores would be the bottleneck; with two, the CUDA-core kernel kept up with memory but
// cost ~5 µs more per decode than the tensor-core one (H100: intercepts of 20-25 µs against 17-19 µs over a
// context sweep, bench/NOTES.md v7).
#pragma once


#include "decode_mma.cuh"
#include "decode_simt.cuh"
#include "kernel_set.hpp"
#include "split_reduce.cuh"

namespace leanattn::cuda {

template <typename T, int D, int ROWS, bool Trace>
KernelSet kernel_set_of() {
    KernelSet set;
    if constexpr (ROWS == 1) set.decode = decode_simt_kernel<T, D, ROWS, Trace>;
    else set.decode = decode_mma_kernel<T, D, ROWS, Trace>;
    set.reduce = split_reduce_kernel<T, D, ROWS>;
    return set;
}

template <typename T, int D, bool Trace>
KernelSet kernel_set_by_rows(std::int64_t rows) {
    switch (rows) {
        case 1: return kernel_set_of<T, D, 1, Trace>();
        case 2: return kernel_set_of<T, D, 2, Trace>();
        case 4: return kernel_set_of<T, D, 4, Trace>();
        case 8: return kernel_set_of<T, D, 8, Trace>();
    }
    return {};
}

// The kernels for element type T; {} for a head_dim or row count check_supported refuses.
template <typename T>
KernelSet kernel_set_for(const KernelVariant& v) {
    if (v.head_dim == 64) return v.trace ? kernel_set_by_rows<T, 64, true>(v.rows) : kernel_set_by_rows<T, 64, false>(v.rows);
    if (v.head_dim == 128) return v.trace ? kernel_set_by_rows<T, 128, true>(v.rows) : kernel_set_by_rows<T, 128, false>(v.rows);
    return {};
}

}  // namespace leanattn::cuda

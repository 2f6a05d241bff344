// tile_kernels.hpp — the two products of a LeanTile, reading K and V in their storage type directly.
//
//   scores:     S (rows, len)  = Q (rows, d) · Kᵀ      K: len token rows of d elements in `dtype`
//   accumulate: acc (rows, d) += P (rows, len) · V     V: likewise
// Converting K and V to fp32 inside the multiply-adds, instead of into a scratch tile first, is what
// lets one core keep up with memory: a separate conversion pass costs a store and a reload per element
// (measured here: 6.8 GB/s for convert-then-use, 17 GB/s fused, one core). Where the compiler and the CPU
// have AVX2 + FMA + F16C the products use intrinsics (tile_kernels_avx2.cpp); elsewhere they convert into
// scratch and use Eigen.
#pragma once

#include <cstdint>
#include <vector>

#include "dtype.hpp"

namespace leanattn::cpu {

// s[r * ld + j] = Σ_i q[r * d + i] · k[j * d + i]
void tile_scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, const float* q, std::int64_t rows, float* s, std::int64_t ld,
                 std::vector<float>& scratch);

// acc[r * d + i] += Σ_j p[r * ld + j] · v[j * d + i]
void tile_accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, const float* p, std::int64_t rows, std::int64_t ld,
                     float* acc, std::vector<float>& scratch);

namespace avx2 {  // tile_kernels_avx2.cpp; callers go through the two functions above
bool available();
void scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, const float* q, std::int64_t rows, float* s, std::int64_t ld);
void accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, const float* p, std::int64_t rows, std::int64_t ld, float* acc);
}  // namespace avx2

}  // namespace leanattn::cpu

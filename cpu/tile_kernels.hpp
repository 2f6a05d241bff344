// tile_kernels.hpp — the two products of a LeanTile, reading K and V in their storage type directly.
//
//   scores:     S (rows, len)  = Q (rows, d) · Kᵀ      K: len token rows of d elements, `kv_stride` apart
//   accumulate: acc (rows, d) += P (rows, len) · V     V: likewise
// (kv_stride is d for a padded cache, kv_heads·d for a token-major or paged one.) Converting K and V to fp32
// inside the multiply-adds, instead of into a scratch tile first, is what lets one core keep up with memory:
// a separate conversion pass costs a store and a reload per element (measured here: 6.8 GB/s for
// convert-then-use, 17 GB/s fused, one core). Where the compiler and the CPU have AVX2 + FMA + F16C the
// products use intrinsics (tile_kernels_avx2.cpp); elsewhere they convert into scratch and use plain loops of the same
// fixed order (tile_kernels.cpp), so that every cache layout gives the same bits on either path.
//
// `ahead` (optional): the rows the caller will need next (the V of these tokens during the scores, the next
// K during the accumulation); the AVX2 products prefetch them into L2 a few lines per token, so memory
// requests stay in flight while the core computes. (Asking for a whole tile at once before computing
// stalled the core on full miss queues: B=1 H=32 d=128 ctx 64k fp16 on 2 cores went from 0.45-0.50 to
// 0.67-0.71 of the plain read bandwidth.)
#pragma once

#include <cstdint>
#include <vector>

#include "dtype.hpp"

namespace leanattn::cpu {

struct RowsAhead {
    const void* base = nullptr;
    std::int64_t rows = 0;
    std::int64_t stride_bytes = 0;  // between consecutive rows
    std::int64_t row_bytes = 0;     // bytes of one row to fetch
};

// s[r * ld + j] = Σ_i q[r * d + i] · k[j * kv_stride + i]
void tile_scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, std::int64_t rows,
                 float* s, std::int64_t ld, std::vector<float>& scratch, const RowsAhead& ahead = {});

// acc[r * d + i] += Σ_j p[r * ld + j] · v[j * kv_stride + i]
void tile_accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t rows,
                     std::int64_t ld, float* acc, std::vector<float>& scratch, const RowsAhead& ahead = {});

namespace avx2 {  // tile_kernels_avx2.cpp; callers go through the two functions above
bool available();
void scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, std::int64_t rows, float* s,
            std::int64_t ld, const RowsAhead& ahead);
void accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t rows,
                std::int64_t ld, float* acc, const RowsAhead& ahead);
}  // namespace avx2

}  // namespace leanattn::cpu

// tile_kernels_avx2.cpp — the LeanTile products with AVX2 + FMA + F16C intrinsics (see tile_kernels.hpp).
//
// The only file built with -mavx2 -mfma -mf16c, and it includes no Eigen: Eigen's inline code compiled
// with different instruction sets in different files would break the one-definition rule (its aligned
// allocations differ), so the wide instructions stay behind this plain-pointer interface.
#include "tile_kernels.hpp"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>

#include <algorithm>

namespace leanattn::cpu::avx2 {

namespace {

// 8 consecutive elements of DT as 8 floats.
template <DType DT>
inline __m256 load8(const void* base, std::int64_t i) {
    if constexpr (DT == DType::fp16) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const std::uint16_t*>(base) + i)));
    } else if constexpr (DT == DType::bf16) {
        const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const std::uint16_t*>(base) + i));
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16));
    } else {
        return _mm256_loadu_ps(static_cast<const float*>(base) + i);
    }
}

inline float hsum(__m256 v) {
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    x = _mm_add_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

// Register blocking: R query rows at once in the scores (R accumulators per token), and 64 output dims
// (8 accumulators) per pass in the accumulation. Compile-time sizes keep everything in registers.
template <DType DT, int R>
void scores_rows(const void* k, std::int64_t len, std::int64_t d, const float* q, float* s, std::int64_t ld) {
    const std::int64_t row_bytes = d * static_cast<std::int64_t>(DT == DType::fp32 ? 4 : 2);
    for (std::int64_t j = 0; j < len; ++j) {
        const void* krow = static_cast<const unsigned char*>(k) + j * row_bytes;
        __m256 sum[R];
        for (int r = 0; r < R; ++r) sum[r] = _mm256_setzero_ps();
        for (std::int64_t i = 0; i < d; i += 8) {
            const __m256 kv = load8<DT>(krow, i);
            for (int r = 0; r < R; ++r) sum[r] = _mm256_fmadd_ps(_mm256_loadu_ps(q + r * d + i), kv, sum[r]);
        }
        for (int r = 0; r < R; ++r) s[r * ld + j] = hsum(sum[r]);
    }
}

template <DType DT>
void scores_simd(const void* k, std::int64_t len, std::int64_t d, const float* q, std::int64_t rows, float* s, std::int64_t ld) {
    std::int64_t r = 0;
    for (; r + 4 <= rows; r += 4) scores_rows<DT, 4>(k, len, d, q + r * d, s + r * ld, ld);
    for (; r < rows; ++r) scores_rows<DT, 1>(k, len, d, q + r * d, s + r * ld, ld);
}

template <DType DT>
void accumulate_simd(const void* v, std::int64_t len, std::int64_t d, const float* p, std::int64_t rows, std::int64_t ld, float* acc) {
    const std::int64_t row_bytes = d * static_cast<std::int64_t>(DT == DType::fp32 ? 4 : 2);
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t i0 = 0; i0 < d; i0 += 64) {
            const int chunks = static_cast<int>(std::min<std::int64_t>(64, d - i0) / 8);
            __m256 a[8];
            for (int c = 0; c < chunks; ++c) a[c] = _mm256_loadu_ps(acc + r * d + i0 + 8 * c);
            for (std::int64_t j = 0; j < len; ++j) {
                const __m256 pj = _mm256_set1_ps(p[r * ld + j]);
                const void* vrow = static_cast<const unsigned char*>(v) + j * row_bytes;
                for (int c = 0; c < chunks; ++c) a[c] = _mm256_fmadd_ps(pj, load8<DT>(vrow, i0 + 8 * c), a[c]);
            }
            for (int c = 0; c < chunks; ++c) _mm256_storeu_ps(acc + r * d + i0 + 8 * c, a[c]);
        }
    }
}
}  // namespace

bool available() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c"); }

void scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, const float* q, std::int64_t rows, float* s, std::int64_t ld) {
    switch (dtype) {
        case DType::fp16: return scores_simd<DType::fp16>(k, len, d, q, rows, s, ld);
        case DType::bf16: return scores_simd<DType::bf16>(k, len, d, q, rows, s, ld);
        case DType::fp32: return scores_simd<DType::fp32>(k, len, d, q, rows, s, ld);
    }
}

void accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, const float* p, std::int64_t rows, std::int64_t ld, float* acc) {
    switch (dtype) {
        case DType::fp16: return accumulate_simd<DType::fp16>(v, len, d, p, rows, ld, acc);
        case DType::bf16: return accumulate_simd<DType::bf16>(v, len, d, p, rows, ld, acc);
        case DType::fp32: return accumulate_simd<DType::fp32>(v, len, d, p, rows, ld, acc);
    }
}

}  // namespace leanattn::cpu::avx2

#else

namespace leanattn::cpu::avx2 {
bool available() { return false; }
void scores(DType, const void*, std::int64_t, std::int64_t, const float*, std::int64_t, float*, std::int64_t) {}
void accumulate(DType, const void*, std::int64_t, std::int64_t, const float*, std::int64_t, std::int64_t, float*) {}
}  // namespace leanattn::cpu::avx2

#endif

// tile_kernels_avx2.cpp — the LeanTile products with AVX2 + FMA + F16C intrinsics (see tile_kernels.hpp).
//
// The only file built with -mavx2 -mfma -mf16c, and it includes no Eigen: Eigen's inline code compiled
// with different instruction sets in different files would break the one-definition rule (its aligned
// allocations differ), so the wide instructions stay behind this plain-pointer interface.
#include "tile_kernels.hpp"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>

namespace leanattn::cpu::avx2 {

namespace {

// Fully unrolls the loops over the register block early, so GCC keeps the accumulator arrays in
// registers (without it, it stored them to the stack at every token: 2-3x slower).
#define LEANATTN_UNROLL _Pragma("GCC unroll 16")

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

// The next operand, streamed toward L2 while a product computes (tile_kernels.hpp says why): `per` of its
// lines for each token the product handles, so the requests spread evenly over the work. Lines are numbered
// row by row (a row's lines, then the next row's `stride_bytes` on). Prefetches never fault.
struct Ahead {
    const unsigned char* base = nullptr;
    std::int64_t stride_bytes = 0, row_lines = 0, lines = 0, per = 0;
    Ahead(const RowsAhead& a, std::int64_t len)
        : base(static_cast<const unsigned char*>(a.base)),
          stride_bytes(a.stride_bytes),
          row_lines((a.row_bytes + 63) / 64),
          lines(a.base ? a.rows * row_lines : 0),
          per((lines + len - 1) / len) {}
    void tokens(std::int64_t j0, std::int64_t j1) const {
        for (std::int64_t l = j0 * per, e = std::min(j1 * per, lines); l < e; ++l) {
            _mm_prefetch(reinterpret_cast<const char*>(base + (l / row_lines) * stride_bytes + 64 * (l % row_lines)), _MM_HINT_T1);
        }
    }
};

template <DType DT>
constexpr std::int64_t elem_bytes = DT == DType::fp32 ? 4 : 2;

// The sums of T = 4 or 8 vectors, lane t holding Σ v[t]. Both widths add each vector's lanes in the same
// tree, ((x0+x1)+(x2+x3)) + ((x4+x5)+(x6+x7)), so a token's score does not depend on the block it fell in.
inline __m128 hsum4(const __m256* v) {
    const __m256 u = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    return _mm_add_ps(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1));
}
inline __m256 hsum8(const __m256* v) {
    const __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    const __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(v[4], v[5]), _mm256_hadd_ps(v[6], v[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}
template <int T>
inline void store_sums(const __m256* v, float* dst) {
    if constexpr (T == 8) _mm256_storeu_ps(dst, hsum8(v));
    else _mm_storeu_ps(dst, hsum4(v));
}

// Register blocking, R·T = 8 accumulators: R query rows against T tokens at once. One chain per
// (row, token) would stall on the FMA latency (4 cycles) at every step of d; 8 independent chains keep both
// FMA ports busy (measured, one core, data in cache, MHA fp16: scores 26 → 60-77 GB/s). Each K vector is
// converted once for R rows. A short last block repeats the last token and stores only the real ones.
template <DType DT, int R, int T>
void scores_block(const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, float* s, std::int64_t ld, const Ahead& ahead) {
    const std::int64_t row_bytes = kv_stride * elem_bytes<DT>;
    for (std::int64_t j0 = 0; j0 < len; j0 += T) {
        ahead.tokens(j0, j0 + T);
        const unsigned char* krow[T];
        LEANATTN_UNROLL
        for (int t = 0; t < T; ++t) krow[t] = static_cast<const unsigned char*>(k) + std::min<std::int64_t>(j0 + t, len - 1) * row_bytes;
        __m256 sum[R][T];
        LEANATTN_UNROLL
        for (int r = 0; r < R; ++r)
            LEANATTN_UNROLL
            for (int t = 0; t < T; ++t) sum[r][t] = _mm256_setzero_ps();
        for (std::int64_t i = 0; i < d; i += 8) {
            __m256 qv[R];
            LEANATTN_UNROLL
            for (int r = 0; r < R; ++r) qv[r] = _mm256_loadu_ps(q + r * d + i);
            LEANATTN_UNROLL
            for (int t = 0; t < T; ++t) {
                const __m256 kv = load8<DT>(krow[t], i);
                LEANATTN_UNROLL
                for (int r = 0; r < R; ++r) sum[r][t] = _mm256_fmadd_ps(qv[r], kv, sum[r][t]);
            }
        }
        LEANATTN_UNROLL
        for (int r = 0; r < R; ++r) {
            if (j0 + T <= len) {
                store_sums<T>(sum[r], s + r * ld + j0);
            } else {
                float out[T];
                store_sums<T>(sum[r], out);
                std::copy(out, out + (len - j0), s + r * ld + j0);
            }
        }
    }
}

template <DType DT>
void scores_simd(const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, std::int64_t rows, float* s,
                 std::int64_t ld, Ahead ahead) {
    std::int64_t r = 0;
    for (; r + 2 <= rows; r += 2, ahead.lines = 0) scores_block<DT, 2, 4>(k, len, d, kv_stride, q + r * d, s + r * ld, ld, ahead);
    for (; r < rows; ++r, ahead.lines = 0) scores_block<DT, 1, 8>(k, len, d, kv_stride, q + r * d, s + r * ld, ld, ahead);
}

// R rows × C chunks of 8 output dims, R·C ≤ 8 accumulators held in registers over all the LeanTile's
// tokens; each V vector is converted once for R rows. Every acc element still adds its tokens in order.
template <DType DT, int R, int C>
void accumulate_block(const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, std::int64_t i0, const float* p, std::int64_t ld,
                      float* acc, const Ahead& ahead) {
    const std::int64_t row_bytes = kv_stride * elem_bytes<DT>;
    __m256 a[R][C];
    LEANATTN_UNROLL
    for (int r = 0; r < R; ++r)
        LEANATTN_UNROLL
        for (int c = 0; c < C; ++c) a[r][c] = _mm256_loadu_ps(acc + r * d + i0 + 8 * c);
    for (std::int64_t j = 0; j < len; ++j) {
        ahead.tokens(j, j + 1);
        const void* vrow = static_cast<const unsigned char*>(v) + j * row_bytes;
        __m256 vv[C];
        LEANATTN_UNROLL
        for (int c = 0; c < C; ++c) vv[c] = load8<DT>(vrow, i0 + 8 * c);
        LEANATTN_UNROLL
        for (int r = 0; r < R; ++r) {
            const __m256 pj = _mm256_broadcast_ss(p + r * ld + j);
            LEANATTN_UNROLL
            for (int c = 0; c < C; ++c) a[r][c] = _mm256_fmadd_ps(pj, vv[c], a[r][c]);
        }
    }
    LEANATTN_UNROLL
    for (int r = 0; r < R; ++r)
        LEANATTN_UNROLL
        for (int c = 0; c < C; ++c) _mm256_storeu_ps(acc + r * d + i0 + 8 * c, a[r][c]);
}

template <DType DT, int R>
void accumulate_rows(const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t ld, float* acc,
                     Ahead& ahead) {
    constexpr int C = 8 / R;
    std::int64_t i0 = 0;
    for (; i0 + 8 * C <= d; i0 += 8 * C, ahead.lines = 0) accumulate_block<DT, R, C>(v, len, d, kv_stride, i0, p, ld, acc, ahead);
    for (; i0 < d; i0 += 8, ahead.lines = 0) accumulate_block<DT, R, 1>(v, len, d, kv_stride, i0, p, ld, acc, ahead);
}

template <DType DT>
void accumulate_simd(const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t rows, std::int64_t ld,
                     float* acc, Ahead ahead) {
    std::int64_t r = 0;  // the first block call issues all of `ahead` (the others find it empty)
    for (; r + 4 <= rows; r += 4) accumulate_rows<DT, 4>(v, len, d, kv_stride, p + r * ld, ld, acc + r * d, ahead);
    for (; r + 2 <= rows; r += 2) accumulate_rows<DT, 2>(v, len, d, kv_stride, p + r * ld, ld, acc + r * d, ahead);
    for (; r < rows; ++r) accumulate_rows<DT, 1>(v, len, d, kv_stride, p + r * ld, ld, acc + r * d, ahead);
}
}  // namespace

bool available() {
    __builtin_cpu_init();  // callers may run during static initialisation (tile_kernels.cpp)
    // F16C from CPUID leaf 1 (ECX bit 29): clang (14) has no "f16c" for __builtin_cpu_supports. AVX2's check covers the
    // OS saving the YMM state, which F16C's VEX instructions need too.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
}

void scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, std::int64_t rows, float* s,
            std::int64_t ld, const RowsAhead& ahead) {
    const Ahead a(ahead, len);
    switch (dtype) {
        case DType::fp16: return scores_simd<DType::fp16>(k, len, d, kv_stride, q, rows, s, ld, a);
        case DType::bf16: return scores_simd<DType::bf16>(k, len, d, kv_stride, q, rows, s, ld, a);
        case DType::fp32: return scores_simd<DType::fp32>(k, len, d, kv_stride, q, rows, s, ld, a);
    }
}

void accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t rows,
                std::int64_t ld, float* acc, const RowsAhead& ahead) {
    const Ahead a(ahead, len);
    switch (dtype) {
        case DType::fp16: return accumulate_simd<DType::fp16>(v, len, d, kv_stride, p, rows, ld, acc, a);
        case DType::bf16: return accumulate_simd<DType::bf16>(v, len, d, kv_stride, p, rows, ld, acc, a);
        case DType::fp32: return accumulate_simd<DType::fp32>(v, len, d, kv_stride, p, rows, ld, acc, a);
    }
}

}  // namespace leanattn::cpu::avx2

#else

namespace leanattn::cpu::avx2 {
bool available() { return false; }
void scores(DType, const void*, std::int64_t, std::int64_t, std::int64_t, const float*, std::int64_t, float*, std::int64_t, const RowsAhead&) {}
void accumulate(DType, const void*, std::int64_t, std::int64_t, std::int64_t, const float*, std::int64_t, std::int64_t, float*, const RowsAhead&) {}
}  // namespace leanattn::cpu::avx2

#endif

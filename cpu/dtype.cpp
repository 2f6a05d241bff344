#include "dtype.hpp"

#include <cstring>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace leanattn::cpu {

namespace {

inline float half_to_float(std::uint16_t h) {
#if defined(__F16C__)
    return _cvtsh_ss(h);
#else
    return fp16_to_float(h);
#endif
}

inline std::uint16_t float_to_half(float f) {
#if defined(__F16C__)
    return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
    return float_to_fp16(f);
#endif
}

}  // namespace

void to_float(DType dtype, const void* src, float* dst, std::int64_t n) {
    switch (dtype) {
        case DType::fp32: std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(float)); return;
        case DType::fp16: {
            const auto* h = static_cast<const std::uint16_t*>(src);
            std::int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
            for (; i + 8 <= n; i += 8) {
                _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
            }
#endif
            for (; i < n; ++i) dst[i] = half_to_float(h[i]);
            return;
        }
        case DType::bf16: {
            const auto* h = static_cast<const std::uint16_t*>(src);
            for (std::int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(h[i]);  // a shift: the compiler vectorises it
            return;
        }
    }
}

void from_float(DType dtype, const float* src, void* dst, std::int64_t n) {
    switch (dtype) {
        case DType::fp32: std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(float)); return;
        case DType::fp16: {
            auto* h = static_cast<std::uint16_t*>(dst);
            for (std::int64_t i = 0; i < n; ++i) h[i] = float_to_half(src[i]);
            return;
        }
        case DType::bf16: {
            auto* h = static_cast<std::uint16_t*>(dst);
            for (std::int64_t i = 0; i < n; ++i) h[i] = float_to_bf16(src[i]);
            return;
        }
    }
}

}  // namespace leanattn::cpu

#include "dtype.hpp"

#include <cmath>

#include "core/input_error.hpp"

namespace leanattn::cpu {

std::string dtype_name(DType dtype) {
    switch (dtype) {
        case DType::fp32: return "fp32";
        case DType::fp16: return "fp16";
        case DType::bf16: return "bf16";
    }
    return "?";
}

DType parse_dtype(const std::string& text) {
    if (text == "fp32") return DType::fp32;
    if (text == "fp16") return DType::fp16;
    if (text == "bf16") return DType::bf16;
    throw InputError("--dtype " + text, "expected fp32, fp16 or bf16");
}

float fp16_to_float(std::uint16_t h) {
#if defined(__F16C__)
    return _cvtsh_ss(h);
#else
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) return bits_to_float(sign) + (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(mant), -24);
    if (exp == 31) return bits_to_float(sign | 0x7f800000u | (mant << 13));
    return bits_to_float(sign | ((exp + 112u) << 23) | (mant << 13));
#endif
}

std::uint16_t float_to_fp16(float f) {
#if defined(__F16C__)
    return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
    // Round-to-nearest-even through the float's bits (handles subnormals, overflow to inf, NaN).
    const std::uint32_t bits = float_to_bits(f);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);
    if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {  // subnormal half: value = m · 2^-24
        const float scaled = bits_to_float(abs) * 16777216.0f;  // exact
        return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
    }
    const std::uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
#endif
}

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
            for (; i < n; ++i) dst[i] = fp16_to_float(h[i]);
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
            for (std::int64_t i = 0; i < n; ++i) h[i] = float_to_fp16(src[i]);
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

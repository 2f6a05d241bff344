// dtype.hpp — the element types of Q, K, V and O on the CPU, and their conversion to fp32.
//
// fp16 and bf16 are stored as raw 16-bit patterns. Conversion to float is exact for both; conversion
// from float rounds to nearest even. Bulk conversion of K/V tiles uses F16C when the compiler targets it
// (the build enables -mf16c where the compiler takes it), a portable bit-exact path otherwise.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace leanattn::cpu {

enum class DType { fp32, fp16, bf16 };

std::string dtype_name(DType dtype);
DType parse_dtype(const std::string& text);  // throws InputError naming --dtype
inline std::size_t dtype_bytes(DType dtype) { return dtype == DType::fp32 ? 4 : 2; }

inline float bits_to_float(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
inline std::uint32_t float_to_bits(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

inline float bf16_to_float(std::uint16_t h) { return bits_to_float(static_cast<std::uint32_t>(h) << 16); }
inline std::uint16_t float_to_bf16(float f) {
    std::uint32_t bits = float_to_bits(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even
    return static_cast<std::uint16_t>(bits >> 16);
}

float fp16_to_float(std::uint16_t h);
std::uint16_t float_to_fp16(float f);

// Converts n elements of `dtype` at `src` to float.
void to_float(DType dtype, const void* src, float* dst, std::int64_t n);
// Rounds n floats into `dtype` at `dst`.
void from_float(DType dtype, const float* src, void* dst, std::int64_t n);

}  // namespace leanattn::cpu

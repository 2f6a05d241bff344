// dtype.hpp — the one element type enum of the project (Q, K, V and O), its names, sizes and scalar
// conversions to and from fp32.
//
// fp16 and bf16 are stored as raw 16-bit patterns. Widening to float is exact for both; narrowing rounds
// to nearest even. These scalar conversions are portable and bit-exact; cpu/ adds vectorised bulk
// conversions that agree with them bit for bit.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace leanattn {

enum class DType : std::int32_t { fp32, fp16, bf16 };

// "fp32", "fp16", "bf16": the spelling of the command line, the C ABI and the Python package.
std::string_view dtype_name(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
constexpr std::int64_t dtype_bytes(DType dtype) { return dtype == DType::fp32 ? 4 : 2; }

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

// One element of `dtype` at `p` as a float (exact).
inline float element_to_float(DType dtype, const void* p) {
    std::uint16_t h;
    switch (dtype) {
        case DType::fp32: {
            float f;
            std::memcpy(&f, p, sizeof f);
            return f;
        }
        case DType::fp16: std::memcpy(&h, p, sizeof h); return fp16_to_float(h);
        case DType::bf16: std::memcpy(&h, p, sizeof h); return bf16_to_float(h);
    }
    return 0.0f;
}

}  // namespace leanattn

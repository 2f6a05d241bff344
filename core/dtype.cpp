#include "dtype.hpp"

#include <cmath>

namespace leanattn {

std::string_view dtype_name(DType dtype) {
    switch (dtype) {
        case DType::fp32: return "fp32";
        case DType::fp16: return "fp16";
        case DType::bf16: return "bf16";
    }
    return "unknown";
}

std::optional<DType> parse_dtype(std::string_view text) {
    for (DType d : {DType::fp32, DType::fp16, DType::bf16}) {
        if (text == dtype_name(d)) return d;
    }
    return std::nullopt;
}

float fp16_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) return bits_to_float(sign) + (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(mant), -24);
    if (exp == 31) return bits_to_float(sign | 0x7f800000u | (mant << 13));
    return bits_to_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

std::uint16_t float_to_fp16(float f) {
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
}

}  // namespace leanattn

// saturating.hpp — int64 arithmetic that sticks at INT64_MAX instead of wrapping: for estimates of sizes
// that may be absurd (a cost of "more than 2^63 bytes" is still a correct refusal), never for plans.
#pragma once

#include <cstdint>
#include <limits>

namespace leanattn::saturating {

inline constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();

// a, b ≥ 0.
inline std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    return __builtin_add_overflow(a, b, &out) ? max : out;
}

inline std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    return __builtin_mul_overflow(a, b, &out) ? max : out;
}

template <typename... Rest>
std::int64_t mul(std::int64_t a, std::int64_t b, Rest... rest) {
    return mul(mul(a, b), rest...);
}

// ⌈a / b⌉ for a ≥ 0, b ≥ 1, without the sum that could overflow.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a == 0 ? 0 : (a - 1) / b + 1; }

}  // namespace leanattn::saturating

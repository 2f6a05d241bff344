// dtype.hpp — bulk conversion of Q, K, V and O elements to and from fp32 on the CPU.
//
// The element type is the project's one DType (core/dtype.hpp). These conversions agree bit for bit with
// core's scalar ones; where the compiler targets F16C (the build enables -mf16c where the compiler takes it)
// fp16 goes through it, eight at a time.
#pragma once

#include <cstdint>

#include "core/dtype.hpp"

namespace leanattn::cpu {

// Converts n elements of `dtype` at `src` to float (exact).
void to_float(DType dtype, const void* src, float* dst, std::int64_t n);
// Rounds n floats into `dtype` at `dst` (to nearest even).
void from_float(DType dtype, const float* src, void* dst, std::int64_t n);

}  // namespace leanattn::cpu

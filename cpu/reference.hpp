// reference.hpp — exact attention in float64, the yardstick every fast path is checked against.
//
// Plain softmax(q·Kᵀ/√d)·V per query head (GQA: query head qh reads KV head qh / group), on the very
// values the tensors hold (already rounded to their dtype). For q_len > 1, query i of q_len sees the first
// ctx − q_len + i + 1 tokens (causal decode of several tokens at once).
#pragma once

#include <vector>

#include "decode_tensors.hpp"

namespace leanattn::cpu {

struct ReferenceOutput {
    std::vector<double> o;    // (batch, q_heads, q_len, head_dim)
    std::vector<double> lse;  // (batch, q_heads, q_len), natural log
};

ReferenceOutput reference_attention(const DecodeTensors& tensors);

struct Errors {
    double rel_l2 = 0;        // ‖out − ref‖ / ‖ref‖ over finite elements of O
    double max_abs = 0;       // max |out − ref| over O
    double lse_max_abs = 0;   // max |lse − ref| 
    std::int64_t non_finite = 0;  // elements of O and LSE that are NaN or infinite (never acceptable)
};

Errors compare_to_reference(const DecodeTensors& tensors, const ReferenceOutput& ref);

// The rel. L2 a correct run stays under, by dtype. fp32: 1e-5 (fp32 accumulation over ≤ 1M terms in
// blocked sums). fp16/bf16: the output is rounded to the dtype, whose unit roundoff (2^-11, 2^-8)
// dominates; twice that: 1e-3 and 8e-3. The reference sees the same rounded inputs, so input rounding
// is not an error.
double tolerance(DType dtype);

}  // namespace leanattn::cpu

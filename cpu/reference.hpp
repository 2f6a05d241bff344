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

// The rel. L2 a correct run stays under, by dtype, from the arithmetic (u: a type's unit roundoff).
//  - fp32: the only error is rounding in fp32 sums: d products per logit (an absolute logit error is a
//    relative weight error), then the softmax and P·V sums over n tokens, each LeanTile summed on its own
//    before it joins the running state. Rounding errors add like a random walk, so the relative error
//    grows as u·(√d + √tile + √(n / tile)) ≈ 6e-8 · (11 + 11 + 90) ≈ 7e-6 at d = 128, n = 1M: bound 1e-5.
//    Measured: 3.0e-7 (64k tokens, stream-k), 1.8e-6 (1M tokens in one CTA).
//  - fp16 / bf16: the reference reads the very values the tensors hold (already rounded), so input
//    rounding is no error. What remains is the fp32 part (≤ 1e-5) plus rounding O to the dtype: every
//    element moves by at most u_out of itself (2^-11 fp16, 2^-8 bf16), so ‖δ‖ ≤ u_out·‖O‖ and the rel. L2
//    is at most u_out + 1e-5: 5.0e-4 (fp16) and 3.9e-3 (bf16). Tolerance: twice that, 1e-3 and 8e-3.
//    Measured: 2.1e-4 and 1.7e-3 (about u_out/√3, the rms of a uniform rounding error). fp16 outputs
//    below 6.1e-5 (subnormal) round absolutely, not relatively: a negligible share of ‖O‖.
double tolerance(DType dtype);

}  // namespace leanattn::cpu

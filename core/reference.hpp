// reference.hpp — exact attention in float64: the yardstick every executor is checked against (the CPU
// executor and the CUDA kernels alike, on the very values their tensors hold).
//
// Plain softmax(q·Kᵀ · scale)·V per query head (GQA: query head qh reads KV head qh / group), for the live
// lengths in cache_seqlens; query token i of q_len sees the first seqlen − q_len + i + 1 tokens, and a row that sees
// none (an empty slot's) is out 0 and lse −∞. The views must point to host memory (copy a GPU's tensors back first).
#pragma once

#include <cstdint>
#include <vector>

#include "decode_tensors.hpp"
#include "problem.hpp"

namespace leanattn {

struct ReferenceOutput {
    std::vector<double> o;    // (batch, q_len, q_heads, head_dim), dense
    std::vector<double> lse;  // (batch, q_heads, q_len), dense, natural log
};

ReferenceOutput reference_attention(const Problem& shape, const DecodeTensors& tensors);

struct Errors {
    double rel_l2 = 0;            // ‖out − ref‖ / ‖ref‖ over the finite elements of O
    double max_abs = 0;           // max |out − ref| over O
    double lse_max_abs = 0;       // max |lse − ref| (when the tensors have an LSE)
    std::int64_t non_finite = 0;  // elements of O and LSE that are NaN or infinite (never acceptable)
};

// Compares the tensors' O (and LSE) with the reference.
Errors compare_to_reference(const Problem& shape, const DecodeTensors& tensors, const ReferenceOutput& ref);

// The rel. L2 a correct run stays under, by dtype, from the arithmetic (u: a type's unit roundoff).
//  - fp32: the only error is rounding in fp32 sums: d products per logit (an absolute logit error is a
//    relative weight error), then the softmax and P·V sums over n tokens, each LeanTile summed on its own
//    before it joins the running state. Rounding errors add like a random walk, so the relative error
//    grows as u·(√d + √tile + √(n / tile)) ≈ 6e-8 · (11 + 11 + 90) ≈ 7e-6 at d = 128, n = 1M: bound 1e-5.
//    Measured on the CPU executor: 3.0e-7 (64k tokens, stream-k), 1.8e-6 (1M tokens in one CTA).
//  - fp16 / bf16: the reference reads the very values the tensors hold (already rounded), so input
//    rounding is no error. What remains is the fp32 part (≤ 1e-5) plus rounding O to the dtype: every
//    element moves by at most u_out of itself (2^-11 fp16, 2^-8 bf16), so ‖δ‖ ≤ u_out·‖O‖ and the rel. L2
//    is at most u_out + 1e-5: 5.0e-4 (fp16) and 3.9e-3 (bf16). Tolerance: twice that, 1e-3 and 8e-3.
//    Measured: 2.1e-4 and 1.7e-3 (about u_out/√3, the rms of a uniform rounding error). The GPU's tensor
//    cores round P to the dtype before P·V; that error averages out over the tokens and stays far inside.
double tolerance(DType dtype);

// The softmax_lse a correct run stays within, absolute (natural log), for any dtype: the LSE is m + log l in fp32, so its
// error is l's relative error (fp32 sums as above: ~6e-6 at 1M tokens) plus m's rounding (u·|m|, ~1e-6 at logits of 20).
// Bound 1e-4; measured at most 1.7e-6 in the H100 validations kept in bench/results/raw. A wrong LSE is off by far more
// (base 2 for base e: a third of it).
inline constexpr double lse_tolerance = 1e-4;

// Whether a run's errors pass: no NaN or inf in O or the LSE, O's rel. L2 within tolerance(dtype), the LSE within
// lse_tolerance.
bool within_tolerance(const Errors& errors, DType dtype);

}  // namespace leanattn

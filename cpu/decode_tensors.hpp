// decode_tensors.hpp — the tensors of one decode step on the CPU, and the seeded generator that fills them.
//
//   Q, O  (batch, q_heads, q_len, head_dim)                 in `dtype`
//   LSE   (batch, q_heads, q_len)                           fp32, natural log of the softmax denominator
//   K, V  padded: (batch, kv_heads, max_ctx, head_dim)      in `dtype`; request b uses its first ctx[b] tokens
//         ragged: (kv_heads, total_ctx, head_dim)           with cu_seqlens (batch + 1): request b's tokens are
//                                                           [cu_seqlens[b], cu_seqlens[b+1]) (the paper's
//                                                           ragged batching: no padding at all)
// Either way the tokens of one (request, kv-head) slice are contiguous rows of head_dim elements.
#pragma once

#include <cstdint>
#include <vector>

#include "core/problem.hpp"
#include "dtype.hpp"

namespace leanattn::cpu {

enum class KvLayout { padded, ragged };

KvLayout parse_layout(const std::string& text);  // throws InputError naming --layout

class DecodeTensors {
public:
    DecodeTensors(const Problem& problem, DType dtype, KvLayout layout);

    const Problem& problem() const { return problem_; }
    DType dtype() const { return dtype_; }
    KvLayout layout() const { return layout_; }

    // First element of the (request b, kv-head h) slice of K or V; its ctx[b] tokens follow contiguously.
    const void* k_slice(std::int64_t b, std::int64_t h) const { return element(k_, slice_offset(b, h)); }
    const void* v_slice(std::int64_t b, std::int64_t h) const { return element(v_, slice_offset(b, h)); }
    void* k_slice(std::int64_t b, std::int64_t h) { return element(k_, slice_offset(b, h)); }
    // First of the group·q_len rows of output tile (b, h) in Q and O (they are contiguous).
    const void* q_rows(std::int64_t b, std::int64_t h) const { return element(q_, rows_offset(b, h)); }
    void* o_rows(std::int64_t b, std::int64_t h) { return element(o_, rows_offset(b, h)); }
    const void* o_rows(std::int64_t b, std::int64_t h) const { return element(o_, rows_offset(b, h)); }
    float* lse_rows(std::int64_t b, std::int64_t h) { return lse_.data() + (b * problem_.q_heads + h * problem_.group()) * problem_.q_len; }
    const float* lse_rows(std::int64_t b, std::int64_t h) const {
        return lse_.data() + (b * problem_.q_heads + h * problem_.group()) * problem_.q_len;
    }

    // Fills Q, K and V from a counter-based hash of (seed, tensor, index): uniform in [-√3, √3] (unit
    // variance), rounded to the dtype; the same seed gives the same tensors for any thread count.
    // `q_scale` multiplies Q (to make logits large on purpose).
    void fill_random(std::uint64_t seed, float q_scale = 1.0f);
    // Sets O and the LSE to NaN, so an element the executor forgets can never pass a check.
    void poison_outputs();

    // Whole tensors as float (exact), in the layouts above: for references and comparisons.
    std::vector<float> q_float() const { return as_float(q_); }
    std::vector<float> o_float() const { return as_float(o_); }
    const std::vector<float>& lse() const { return lse_; }
    std::int64_t kv_elements() const { return static_cast<std::int64_t>(k_.size() / dtype_bytes(dtype_)); }
    std::int64_t kv_bytes_read() const;  // bytes of K and V holding real tokens (what a decode must read)

    // Raw storage, for tests that plant special values.
    std::vector<unsigned char>& raw_q() { return q_; }
    std::vector<unsigned char>& raw_k() { return k_; }
    std::vector<unsigned char>& raw_v() { return v_; }
    std::vector<unsigned char>& raw_o() { return o_; }
    std::vector<float>& raw_lse() { return lse_; }

private:
    std::int64_t slice_offset(std::int64_t b, std::int64_t h) const;
    std::int64_t rows_offset(std::int64_t b, std::int64_t h) const { return (b * problem_.q_heads + h * problem_.group()) * problem_.q_len * problem_.head_dim; }
    void* element(std::vector<unsigned char>& t, std::int64_t i) { return t.data() + i * static_cast<std::int64_t>(dtype_bytes(dtype_)); }
    const void* element(const std::vector<unsigned char>& t, std::int64_t i) const { return t.data() + i * static_cast<std::int64_t>(dtype_bytes(dtype_)); }
    std::vector<float> as_float(const std::vector<unsigned char>& t) const;

    Problem problem_;
    DType dtype_;
    KvLayout layout_;
    std::int64_t max_ctx_ = 0, total_ctx_ = 0;
    std::vector<std::int64_t> cu_seqlens_;
    std::vector<unsigned char> q_, k_, v_, o_;
    std::vector<float> lse_;
};

}  // namespace leanattn::cpu

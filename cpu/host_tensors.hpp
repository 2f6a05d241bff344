// host_tensors.hpp — the tensors of one decode step in host memory, owned, in one of the tools' layouts
// (core/tensor_layout.hpp: padded, token-major, paged or ragged K/V), with the seeded generator that fills
// them. What `leanattn cpu` and the tests run the executor on; view() is what the executor reads.
//
//   q, o  (batch, q_len, q_heads, d)   lse (batch, q_heads, q_len) fp32   K, V: the layout's arrangement
#pragma once

#include <cstdint>
#include <vector>

#include "core/decode_tensors.hpp"
#include "core/problem.hpp"
#include "core/tensor_layout.hpp"

namespace leanattn::cpu {

class HostTensors {
public:
    HostTensors(const Problem& problem, DType dtype, CacheLayout layout, std::int64_t block_size = 16);

    const Problem& problem() const { return problem_; }
    DType dtype() const { return layout_.views.dtype; }
    CacheLayout layout() const { return kind_; }

    // Views of this storage (host memory), for the executor, the reference and comparisons.
    DecodeTensors view();
    DecodeTensors view() const;

    // Fills Q, K and V from a counter-based hash of (seed, tensor, index): uniform in [-√3, √3] (unit
    // variance), rounded to the dtype; the same seed gives the same tensors for any thread count and on the
    // GPU. `q_scale` multiplies Q (to make logits large on purpose).
    void fill_random(std::uint64_t seed, float q_scale = 1.0f);
    // Sets O and the LSE to NaN, so an element the executor forgets can never pass a check.
    void poison_outputs();

    // Element offset of token t of (request b, kv-head h) in K and V: for tests that plant values.
    std::int64_t kv_offset(std::int64_t b, std::int64_t h, std::int64_t t) const { return tensors::kv_offset(view().kv, b, h, t); }

    // Whole tensors as float (exact): for bitwise comparisons.
    std::vector<float> o_float() const { return as_float(o_); }
    const std::vector<float>& lse() const { return lse_; }

    // Raw storage, for tests that plant special values and for copies to a GPU.
    std::vector<unsigned char>& raw_q() { return q_; }
    std::vector<unsigned char>& raw_k() { return k_; }
    std::vector<unsigned char>& raw_v() { return v_; }
    std::vector<unsigned char>& raw_o() { return o_; }
    std::vector<std::int32_t>& seqlens() { return layout_.seqlens; }

private:
    std::vector<float> as_float(const std::vector<unsigned char>& t) const;

    Problem problem_;
    CacheLayout kind_;
    TensorLayout layout_;
    std::vector<unsigned char> q_, k_, v_, o_;
    std::vector<float> lse_;
};

}  // namespace leanattn::cpu

// tensor_layout.hpp — the geometry of the tensors the tools build for a problem: sizes, strides, block
// tables. The API takes any strides; these are the arrangements `leanattn cpu`, `leanattn cuda` and the
// tests lay their own random inputs out in, so the CPU and GPU sides build them identically.
//
//   q, o   dense (batch, q_len, q_heads, d);  lse dense (batch, q_heads, q_len)
//   K, V   padded       (batch, kv_heads, N, d), N = longest context
//          token-major  (batch, N, kv_heads, d)  (flash_attn_with_kvcache's cache)
//          paged        (num_blocks, block_size, kv_heads, d); each request owns ⌈N / block_size⌉ blocks
//                       at shuffled ids (a seeded permutation), so a table that is read wrongly shows
//          ragged       (kv_heads, Σ ctx, d), request b at rows [cu_seqlens[b], cu_seqlens[b+1])
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "decode_tensors.hpp"
#include "problem.hpp"

namespace leanattn {

enum class CacheLayout { padded, token_major, paged, ragged };

// "padded", "token-major", "paged", "ragged".
std::string_view cache_layout_name(CacheLayout layout);
std::optional<CacheLayout> parse_cache_layout(std::string_view text);

struct TensorLayout {
    std::int64_t q_elements = 0;   // of q, and of o
    std::int64_t kv_elements = 0;  // of K, and of V
    std::int64_t lse_elements = 0;
    DecodeTensors views;           // strides and layout fields set; every pointer null
    std::vector<std::int32_t> seqlens;      // (batch): the problem's context lengths
    std::vector<std::int32_t> block_table;  // paged: (batch, max_blocks)
    std::vector<std::int32_t> cu_seqlens;   // ragged: (batch + 1)
};

// Throws InputError when a context length does not fit cache_seqlens' int32, or block_size is not in
// [1, 256] for a paged layout.
TensorLayout make_tensor_layout(const Problem& problem, DType dtype, CacheLayout layout, std::int64_t block_size = 16,
                                std::uint64_t seed = 1);

}  // namespace leanattn

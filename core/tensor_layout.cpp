#include "tensor_layout.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "input_error.hpp"

namespace leanattn {

std::string_view cache_layout_name(CacheLayout layout) {
    switch (layout) {
        case CacheLayout::padded: return "padded";
        case CacheLayout::token_major: return "token-major";
        case CacheLayout::paged: return "paged";
        case CacheLayout::ragged: return "ragged";
    }
    return "unknown";
}

std::optional<CacheLayout> parse_cache_layout(std::string_view text) {
    for (CacheLayout l : {CacheLayout::padded, CacheLayout::token_major, CacheLayout::paged, CacheLayout::ragged}) {
        if (text == cache_layout_name(l)) return l;
    }
    return std::nullopt;
}

TensorLayout make_tensor_layout(const Problem& p, DType dtype, CacheLayout layout, std::int64_t block_size, std::uint64_t seed) {
    TensorLayout t;
    const std::int64_t d = p.head_dim, n = p.max_ctx();
    for (std::int64_t c : p.ctx) {
        if (c > std::numeric_limits<std::int32_t>::max()) throw InputError({{"ctx", std::to_string(c)}}, "cache_seqlens are int32: at most 2147483647 tokens per request");
        t.seqlens.push_back(static_cast<std::int32_t>(c));
    }
    t.views.dtype = dtype;
    t.q_elements = p.batch * p.q_len * p.q_heads * d;
    t.lse_elements = p.batch * p.q_heads * p.q_len;
    t.views.q = {nullptr, p.q_len * p.q_heads * d, p.q_heads * d, d};
    t.views.o = t.views.q;
    t.views.lse = {nullptr, p.q_heads * p.q_len, p.q_len, 1};
    KvCacheView& kv = t.views.kv;
    switch (layout) {
        case CacheLayout::padded:
            kv.layout = KvLayout::strided;
            kv.stride_request = p.kv_heads * n * d, kv.stride_head = n * d, kv.stride_token = d;
            kv.capacity = n;
            t.kv_elements = p.batch * p.kv_heads * n * d;
            break;
        case CacheLayout::token_major:
            kv.layout = KvLayout::strided;
            kv.stride_request = n * p.kv_heads * d, kv.stride_token = p.kv_heads * d, kv.stride_head = d;
            kv.capacity = n;
            t.kv_elements = p.batch * n * p.kv_heads * d;
            break;
        case CacheLayout::paged: {
            if (block_size < 1 || block_size > 256) throw InputError({{"block_size", std::to_string(block_size)}}, "must lie in 1..256 tokens");
            const std::int64_t per_request = (n + block_size - 1) / block_size;
            if (per_request > std::numeric_limits<std::int32_t>::max() / p.batch) {
                throw InputError({{"block_size", std::to_string(block_size)}}, "the paged cache would need more than 2147483647 blocks: block ids are int32");
            }
            std::vector<std::int32_t> ids(static_cast<std::size_t>(p.batch * per_request));
            std::iota(ids.begin(), ids.end(), 0);
            std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed));
            kv.layout = KvLayout::paged;
            kv.stride_request = block_size * p.kv_heads * d, kv.stride_token = p.kv_heads * d, kv.stride_head = d;
            kv.block_size = block_size;
            kv.num_blocks = static_cast<std::int64_t>(ids.size());
            kv.block_table_stride = per_request;
            kv.capacity = per_request * block_size;
            t.block_table = std::move(ids);
            t.kv_elements = kv.num_blocks * block_size * p.kv_heads * d;
            break;
        }
        case CacheLayout::ragged: {
            kv.layout = KvLayout::ragged;
            t.cu_seqlens.assign(static_cast<std::size_t>(p.batch + 1), 0);
            for (std::int64_t b = 0; b < p.batch; ++b) t.cu_seqlens[b + 1] = static_cast<std::int32_t>(t.cu_seqlens[b] + p.ctx[b]);
            const std::int64_t total = p.total_ctx();
            if (total > std::numeric_limits<std::int32_t>::max()) throw InputError({{"ctx", ""}}, "a ragged cache's cu_seqlens are int32: at most 2147483647 tokens in all");
            kv.stride_head = total * d, kv.stride_token = d;
            kv.capacity = n;
            t.kv_elements = p.kv_heads * total * d;
            break;
        }
    }
    return t;
}

}  // namespace leanattn

// decode_shape.hpp — a uniform decode problem by its shape, with the paper's LeanTile for its head dim.
#pragma once

#include <cstdint>

#include "core/problem.hpp"

namespace leanattn::testing {

inline Problem decode_shape(std::int64_t batch, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t ctx) {
    Problem p;
    p.batch = batch;
    p.q_heads = heads;
    p.kv_heads = kv_heads;
    p.head_dim = head_dim;
    p.tile = default_tile(head_dim);
    p.ctx.assign(static_cast<std::size_t>(batch), ctx);
    return p;
}

}  // namespace leanattn::testing

// gpu_fixtures.hpp — what the GPU tests share: the skip where no GPU is found, and small problems.
#pragma once

#include <catch2/catch.hpp>

#include <iostream>
#include <string>

#include "core/problem.hpp"
#include "cuda/decode.hpp"
#include "cuda/plan_visits.cuh"

namespace leanattn::testing {

// False, after saying so on stdout and as a Catch warning, where no CUDA device can be used.
inline bool gpu_or_skip(const char* what) {
    std::string why;
    if (cuda::device_available(&why)) return true;
    std::cout << "skipping " << what << ": " << why << "\n";
    WARN("skipped: no CUDA device (" << why << ")");
    return false;
}

inline Problem gpu_problem(std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, std::vector<std::int64_t> ctx) {
    Problem p;
    p.batch = static_cast<std::int64_t>(ctx.size());
    p.q_heads = q_heads;
    p.kv_heads = kv_heads;
    p.head_dim = head_dim;
    p.tile = default_tile(head_dim);
    p.ctx = std::move(ctx);
    return p;
}

}  // namespace leanattn::testing

// random_problems.hpp — random problems and devices for property tests, seeded by Catch's --rng-seed so a
// failure replays exactly.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/device_spec.hpp"
#include "core/problem.hpp"

namespace leanattn::testing {

inline std::mt19937_64 seeded_rng(std::uint64_t salt) { return std::mt19937_64(Catch::rngSeed() * 0x9E3779B97F4A7C15ull + salt); }

inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

// Log-uniform in [lo, hi]: short and very long contexts both show up often.
inline std::int64_t log_uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
    const double x = std::uniform_real_distribution<double>(std::log(double(lo)), std::log(double(hi) + 1.0))(rng);
    return std::min(hi, std::max(lo, static_cast<std::int64_t>(std::exp(x))));
}

// The shapes randomized tests draw from: ragged batches, GQA, tiles 16..512, contexts from one token to 1M
// (the paper's longest).
inline Problem random_problem(std::mt19937_64& rng, std::int64_t max_ctx = 1 << 20) {
    Problem p;
    p.batch = log_uniform(rng, 1, 16);
    p.kv_heads = log_uniform(rng, 1, 64);
    p.q_heads = p.kv_heads * log_uniform(rng, 1, 8);
    p.head_dim = 16 * uniform(rng, 1, 16);
    p.tile = 16 * uniform(rng, 1, 32);
    p.q_len = uniform(rng, 1, 4);
    const bool ragged = uniform(rng, 0, 1) == 1;
    const std::int64_t shared = log_uniform(rng, p.q_len, max_ctx);
    for (std::int64_t b = 0; b < p.batch; ++b) p.ctx.push_back(ragged ? log_uniform(rng, p.q_len, max_ctx) : shared);
    return p;
}

// Live lengths of a decode step in a cache of the problem's capacities: each in [q_len, ctx[b]], as int32
// cache_seqlens.
inline std::vector<std::int32_t> random_live_lengths(std::mt19937_64& rng, const Problem& p) {
    std::vector<std::int32_t> lengths;
    for (std::int64_t b = 0; b < p.batch; ++b) lengths.push_back(static_cast<std::int32_t>(uniform(rng, p.q_len, p.ctx[b])));
    return lengths;
}

inline DeviceSpec random_device(std::mt19937_64& rng) {
    DeviceSpec d;
    d.name = "random";
    d.sms = log_uniform(rng, 1, 1024);
    d.ctas_per_sm = uniform(rng, 1, 4);
    return d;
}

inline std::string describe(const Problem& p, const DeviceSpec& d) {
    std::ostringstream out;
    out << "batch " << p.batch << " q_heads " << p.q_heads << " kv_heads " << p.kv_heads << " head_dim " << p.head_dim << " tile " << p.tile
        << " q_len " << p.q_len << " sms " << d.sms << " ctas_per_sm " << d.ctas_per_sm << " ctx";
    for (std::int64_t c : p.ctx) out << " " << c;
    return out.str();
}

}  // namespace leanattn::testing

// The two LeanTile products against a float64 loop, over every register-blocking path of the AVX2 kernels
// (rows in blocks of 4/2/1, tokens in blocks of 8/4 with short last blocks, dims in blocks of 64/32/8)
// and the portable Eigen path (head dims that are not a multiple of 8).
#include <catch2/catch.hpp>

#include <cmath>

#include "../core/random_problems.hpp"
#include "cpu/dtype.hpp"
#include "cpu/tile_kernels.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

// Random values in [-1, 1], rounded to `dtype` and stored in it; `as_float` gets the exact values back.
std::vector<unsigned char> random_tensor(std::mt19937_64& rng, DType dtype, std::int64_t n, std::vector<float>& as_float) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& e : x) e = u(rng);
    std::vector<unsigned char> stored(static_cast<std::size_t>(n) * dtype_bytes(dtype));
    cpu::from_float(dtype, x.data(), stored.data(), n);
    as_float.resize(x.size());
    cpu::to_float(dtype, stored.data(), as_float.data(), n);
    return stored;
}

// The rounding error of an fp32 sum of n products, in any order, with or without FMA: at most
// γ_n·Σ|terms| with γ_n = n·u/(1 − n·u), u = 2^-24 (Higham, Accuracy and Stability, §3.1). A term left
// out or counted twice is off by about Σ|terms|/n, far above it.
double fp32_sum_bound(std::int64_t n, double magnitude) {
    const double nu = static_cast<double>(n) * 0x1.0p-24;
    return nu / (1 - nu) * magnitude;
}

}  // namespace

TEST_CASE("the LeanTile products equal a float64 loop for any rows, tokens, head dim and row stride, in every dtype") {
    auto rng = seeded_rng(53);
    std::vector<float> scratch;
    for (std::int64_t d : {8, 16, 20, 24, 40, 64, 72, 128, 136}) {
        for (int trial = 0; trial < 30; ++trial) {
            const auto dtype = static_cast<DType>(trial % 3);
            const std::int64_t rows = uniform(rng, 1, 9), len = uniform(rng, 1, 37), ld = len + uniform(rng, 0, 3);
            const std::int64_t stride = d * uniform(rng, 1, 3) + 8 * uniform(rng, 0, 2);  // padded, token-major or paged rows
            CAPTURE(d, rows, len, ld, stride, dtype_name(dtype));
            std::vector<float> k, v, q(static_cast<std::size_t>(rows * d)), p(static_cast<std::size_t>(rows * ld));
            const std::vector<unsigned char> k_stored = random_tensor(rng, dtype, len * stride, k);
            const std::vector<unsigned char> v_stored = random_tensor(rng, dtype, len * stride, v);
            std::uniform_real_distribution<float> u(-1.0f, 1.0f);
            for (float& e : q) e = u(rng);
            for (float& e : p) e = u(rng) + 1.0f;  // probabilities are ≥ 0
            std::vector<float> acc(static_cast<std::size_t>(rows * d));
            for (float& e : acc) e = u(rng);
            const std::vector<float> acc_before = acc;

            std::vector<float> s(static_cast<std::size_t>(rows * ld), std::nanf(""));
            const cpu::RowsAhead ahead{v_stored.data(), len, stride * dtype_bytes(dtype), d * dtype_bytes(dtype)};  // prefetches never fault
            cpu::tile_scores(dtype, k_stored.data(), len, d, stride, q.data(), rows, s.data(), ld, scratch, ahead);
            cpu::tile_accumulate(dtype, v_stored.data(), len, d, stride, p.data(), rows, ld, acc.data(), scratch, ahead);
            for (std::int64_t r = 0; r < rows; ++r) {
                for (std::int64_t j = 0; j < len; ++j) {
                    double want = 0, magnitude = 0;
                    for (std::int64_t i = 0; i < d; ++i) {
                        want += double(q[r * d + i]) * k[j * stride + i];
                        magnitude += std::abs(double(q[r * d + i]) * k[j * stride + i]);
                    }
                    REQUIRE(std::abs(s[r * ld + j] - want) <= fp32_sum_bound(d, magnitude));
                }
                for (std::int64_t j = len; j < ld; ++j) REQUIRE(std::isnan(s[r * ld + j]));  // the padding is not written
                for (std::int64_t i = 0; i < d; ++i) {
                    double want = acc_before[r * d + i], magnitude = std::abs(want);
                    for (std::int64_t j = 0; j < len; ++j) {
                        want += double(p[r * ld + j]) * v[j * stride + i];
                        magnitude += std::abs(double(p[r * ld + j]) * v[j * stride + i]);
                    }
                    REQUIRE(std::abs(acc[r * d + i] - want) <= fp32_sum_bound(len + 1, magnitude));
                }
            }
        }
    }
}

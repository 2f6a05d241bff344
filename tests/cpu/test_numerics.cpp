// Numerics of the CPU path: large logits, tiny and odd contexts, ragged extremes, equal keys, the
// associativity of the re-scaling operator, and where a NaN goes.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "../core/random_problems.hpp"
#include "cpu/dtype.hpp"
#include "cpu/lean_tile.hpp"
#include "cpu_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

Problem small(std::vector<std::int64_t> ctx, std::int64_t heads = 2, std::int64_t kv_heads = 2, std::int64_t d = 32, std::int64_t tile = 16) {
    Problem p;
    p.batch = static_cast<std::int64_t>(ctx.size());
    p.q_heads = heads;
    p.kv_heads = kv_heads;
    p.head_dim = d;
    p.tile = tile;
    p.ctx = std::move(ctx);
    return p;
}

void check_all_strategies(const Problem& p, cpu::HostTensors& t, double tol) {
    const ReferenceOutput ref = reference_of(t);
    for (Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        CAPTURE(strategy_name(s));
        const Errors e = run_and_check(plan_for(p, test_device(7, 1), s), t, ref, 2);
        CHECK(e.non_finite == 0);
        CHECK(e.rel_l2 <= tol);
    }
}

}  // namespace

TEST_CASE("logits of magnitude 1e4 do not overflow") {
    const Problem p = small({300, 40});
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    t.fill_random(3, 1e4f * std::sqrt(32.0f) / 3.0f);  // |q·k|/√d reaches ~1e4: exp would overflow without the max
    check_all_strategies(p, t, 1e-5);
}

TEST_CASE("a 1-token context, and contexts that are not a multiple of the LeanTile") {
    for (std::int64_t n : {1, 15, 17, 31, 33, 1000}) {
        CAPTURE(n);
        const Problem p = small({n});
        cpu::HostTensors t(p, DType::fp16, CacheLayout::padded);
        t.fill_random(static_cast<std::uint64_t>(n));
        check_all_strategies(p, t, tolerance(DType::fp16));
    }
}

TEST_CASE("a ragged batch with a 1-token request beside a 100k one") {
    const Problem p = small({1, 100000}, 2, 1, 64, 128);
    cpu::HostTensors t(p, DType::bf16, CacheLayout::ragged);
    t.fill_random(5);
    check_all_strategies(p, t, tolerance(DType::bf16));
}

TEST_CASE("fp32 stays within 1e-5 of float64 over a 1M-token output done by one CTA") {
    // The hardest case for fp32 accumulation: no split, so one CTA sums all 2^20 tokens. With a single
    // running sum this measured 1.6e-5; summing each LeanTile on its own first (lean_tile.cpp) gives ~1.5e-6.
    const Problem p = small({1 << 20}, 1, 1, 16, 128);
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    t.fill_random(29);
    const ReferenceOutput ref = reference_of(t);
    const Errors e = run_and_check(plan_for(p, test_device(1, 1), Strategy::no_split), t, ref, 1);
    CHECK(e.non_finite == 0);
    CHECK(e.rel_l2 <= tolerance(DType::fp32));
}

TEST_CASE("equal keys give the plain average of the values") {
    const Problem p = small({200});
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    t.fill_random(9);
    // Copy token 0's key over every token of every head: all logits of a row are equal.
    auto& k = t.raw_k();
    const std::size_t row = 32 * sizeof(float);
    for (std::size_t off = row; off < k.size(); off += row) std::memcpy(k.data() + off, k.data() + (off / (200 * row)) * 200 * row, row);
    check_all_strategies(p, t, 1e-5);
    const ReferenceOutput ref = reference_of(t);
    std::vector<float> v(k.size() / sizeof(float));
    cpu::to_float(DType::fp32, t.raw_v().data(), v.data(), static_cast<std::int64_t>(v.size()));
    for (int i = 0; i < 32; ++i) {
        double mean = 0;
        for (int j = 0; j < 200; ++j) mean += v[j * 32 + i];
        CHECK(ref.o[i] == Approx(mean / 200).margin(1e-9));
    }
}

TEST_CASE("the re-scaling operator is associative: any split of the tokens, merged in any grouping, gives the same state") {
    auto rng = seeded_rng(41);
    const Problem p = small({16 * 40}, 4, 2, 32, 16);  // 40 LeanTiles per output
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    t.fill_random(13, 3.0f);
    cpu::TileScratch scratch;
    cpu::SoftmaxState whole;
    const DecodeTensors view = t.view();
    cpu::lean_tile_run(p, view, 16 * 40, Segment{0, 0, 40, true, true, true}, whole, scratch);
    for (int trial = 0; trial < 200; ++trial) {
        // Three random unequal, non-empty pieces a | b | c.
        const std::int64_t cut1 = uniform(rng, 1, 38), cut2 = uniform(rng, cut1 + 1, 39);
        cpu::SoftmaxState a, b, c;
        cpu::lean_tile_run(p, view, 16 * 40, Segment{0, 0, cut1, true, false, true}, a, scratch);
        cpu::lean_tile_run(p, view, 16 * 40, Segment{0, cut1, cut2, false, false, true}, b, scratch);
        cpu::lean_tile_run(p, view, 16 * 40, Segment{0, cut2, 40, false, true, true}, c, scratch);
        cpu::SoftmaxState left = a, bc = b;  // (a ∘ b) ∘ c  versus  a ∘ (b ∘ c)
        left.merge(b);
        left.merge(c);
        bc.merge(c);
        cpu::SoftmaxState right = a;
        right.merge(bc);
        CAPTURE(cut1, cut2);
        for (Eigen::Index r = 0; r < whole.acc.rows(); ++r) {
            REQUIRE(left.m[r] == whole.m[r]);  // the maximum is exact whatever the grouping
            REQUIRE(right.m[r] == whole.m[r]);
            REQUIRE(left.l[r] == Approx(whole.l[r]).epsilon(1e-5));
            REQUIRE(right.l[r] == Approx(left.l[r]).epsilon(1e-5));
            for (Eigen::Index i = 0; i < whole.acc.cols(); ++i) {
                REQUIRE(left.acc(r, i) == Approx(whole.acc(r, i)).epsilon(1e-4).margin(1e-5));
                REQUIRE(right.acc(r, i) == Approx(left.acc(r, i)).epsilon(1e-4).margin(1e-5));
            }
        }
    }
}

TEST_CASE("a NaN in one head's keys stays in that head's output: other heads are exact") {
    // Documented behaviour: a NaN logit makes the whole softmax of its rows NaN (there is no meaningful
    // weight for it), and the NaN travels with that output tile's partials only.
    const Problem p = small({500, 300}, 4, 2, 32, 16);
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    t.fill_random(17);
    const ReferenceOutput clean = reference_of(t);
    float* k = reinterpret_cast<float*>(t.raw_k().data());
    k[t.kv_offset(0, 1, 123) + 5] = std::numeric_limits<float>::quiet_NaN();  // request 0, kv-head 1, token 123, dim 5
    for (Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        CAPTURE(strategy_name(s));
        t.poison_outputs();
        execute(plan_for(p, test_device(5, 1), s), t, 2);
        const std::vector<float> o = t.o_float();
        for (std::int64_t qh = 0; qh < 4; ++qh) {
            for (std::int64_t b = 0; b < 2; ++b) {
                const bool poisoned_head = b == 0 && qh / 2 == 1;
                for (int i = 0; i < 32; ++i) {
                    const float x = o[(b * 4 + qh) * 32 + i];
                    if (poisoned_head) REQUIRE(std::isnan(x));
                    else REQUIRE(x == Approx(clean.o[(b * 4 + qh) * 32 + i]).margin(1e-5));
                }
            }
        }
    }
}

TEST_CASE("several query tokens decode causally: query i sees the first ctx - q_len + i + 1 tokens") {
    Problem p = small({97, 40}, 4, 2, 32, 16);
    p.q_len = 4;
    cpu::HostTensors t(p, DType::fp32, CacheLayout::ragged);
    t.fill_random(23);
    check_all_strategies(p, t, 1e-5);
    // The last query sees everything, the first one 3 tokens fewer: their outputs differ. o is
    // (batch, q_len, q_heads, d): query 3 of head 0 starts 3 · 4 heads · 32 dims on.
    const std::vector<float> o = t.o_float();
    CHECK(o[0] != o[3 * 4 * 32]);
}

TEST_CASE("a query never reads a token it does not see: NaN, inf or 3e38 in later new tokens' K and V leave earlier queries' bits as they were") {
    Problem p = small({97, 40}, 4, 2, 32, 16);  // tiles of 16 tokens: the new tokens straddle two LeanTiles of request 0
    p.q_len = 4;
    for (const CacheLayout layout : {CacheLayout::padded, CacheLayout::paged}) {
        cpu::HostTensors t(p, DType::fp32, layout, 3);
        t.fill_random(29);
        for (Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
            const Schedule plan = plan_for(p, test_device(5, 1), s);
            t.poison_outputs();
            execute(plan, t, 2);
            const std::vector<float> clean = t.o_float();
            // Request 0's last token (96) is seen by its last query alone (query 3); token 95 by queries 2 and 3.
            for (const float planted : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 3e38f}) {
                CAPTURE(std::string(cache_layout_name(layout)), strategy_name(s), planted);
                cpu::HostTensors bad = t;
                auto* k = reinterpret_cast<float*>(bad.raw_k().data());
                auto* v = reinterpret_cast<float*>(bad.raw_v().data());
                for (std::int64_t h = 0; h < 2; ++h) {
                    for (int i = 0; i < 32; ++i) {
                        for (float* kv : {k, v}) kv[bad.kv_offset(0, h, 96) + i] = planted, kv[bad.kv_offset(0, h, 95) + i] = planted;
                    }
                }
                bad.poison_outputs();
                execute(plan, bad, 2);
                const std::vector<float> o = bad.o_float();
                // o is (batch, q_len, q_heads, d): request 0's queries 0 and 1 see neither token.
                for (std::int64_t i = 0; i < 2 * 4 * 32; ++i) REQUIRE(o[i] == clean[i]);
                if (std::isnan(planted)) CHECK(std::isnan(o[3 * 4 * 32]));  // query 3 sees both
                for (std::int64_t i = 4 * 4 * 32; i < 8 * 4 * 32; ++i) REQUIRE(o[i] == clean[i]);  // request 1
            }
        }
    }
}

TEST_CASE("a run passes with O within its dtype's tolerance, the LSE within lse_tolerance, and nothing non-finite") {
    Errors e;
    e.rel_l2 = 5e-4, e.lse_max_abs = 2e-6;
    CHECK(within_tolerance(e, DType::fp16));
    CHECK_FALSE(within_tolerance(e, DType::fp32));  // O off by more than fp32's 1e-5
    e.lse_max_abs = 0.3;                            // O right, the LSE wrong (a base-2 LSE is off by a third of it)
    CHECK_FALSE(within_tolerance(e, DType::fp16));
    e.lse_max_abs = 0, e.non_finite = 1;
    CHECK_FALSE(within_tolerance(e, DType::bf16));
    // And a real run: the executor's LSE, against the float64 reference's.
    const Problem p = small({3000, 70}, 4, 2, 64, 32);
    cpu::HostTensors t(p, DType::bf16, CacheLayout::paged, 16);
    t.fill_random(31, 8.0f);
    execute(plan_for(p, test_device(5, 1), Strategy::stream_k), t, 2);
    const Errors run = compare_to_reference(p, t.view(), reference_of(t));
    CHECK(run.lse_max_abs > 0);
    CHECK(within_tolerance(run, DType::bf16));
}

TEST_CASE("fp16 and bf16 conversions round to nearest even and survive a round trip") {
    for (float x : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035e-5f, 5.96e-8f, 3.14159f}) {
        CHECK(fp16_to_float(float_to_fp16(x)) == Approx(x).epsilon(1e-3));
        CHECK(bf16_to_float(float_to_bf16(x)) == Approx(x).epsilon(8e-3));
    }
    CHECK(float_to_fp16(1.0f + 1.0f / 2048) == float_to_fp16(1.0f));  // tie to even (down)
    CHECK(std::isinf(fp16_to_float(float_to_fp16(1e6f))));
    CHECK(std::isnan(bf16_to_float(float_to_bf16(NAN))));
}

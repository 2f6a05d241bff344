// The CPU executor runs any plan: exact against float64, never deadlocks, bitwise deterministic.
#include <catch2/catch.hpp>

#include <cstring>

#include "../core/random_problems.hpp"
#include "core/input_error.hpp"
#include "cpu_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {
// Every kind of plan the executor must run: stream-k under the paper's rule, the aligned rule's own choice and
// the aligned rule with a random snap (empty CTAs, whole outputs, moved hosts), and the two baselines.
std::vector<Schedule> every_plan(const Problem& p, const DeviceSpec& d, std::mt19937_64& rng) {
    PlanOptions paper, aligned, snapped, fixed, none;
    paper.stream_k_rule = StreamKRule::paper;
    snapped.snap = log_uniform(rng, 1, 256);
    fixed.strategy = Strategy::fixed_split;
    none.strategy = Strategy::no_split;
    std::vector<Schedule> plans;
    for (const PlanOptions& o : {paper, aligned, snapped, fixed, none}) plans.push_back(make_schedule(p, d, o));
    return plans;
}
}  // namespace

TEST_CASE("every strategy (stream-k under both rules) matches the float64 reference on random ragged GQA problems, in every dtype and layout") {
    auto rng = seeded_rng(31);
    for (int i = 0; i < 40; ++i) {
        Problem p = random_problem(rng, 3000);
        p.head_dim = 16 * uniform(rng, 1, 8);
        p.kv_heads = std::min<std::int64_t>(p.kv_heads, 4);
        p.q_heads = p.kv_heads * uniform(rng, 1, 4);
        p.batch = std::min<std::int64_t>(p.batch, 4);
        p.ctx.resize(static_cast<std::size_t>(p.batch));
        const DeviceSpec d = test_device(uniform(rng, 1, 40), uniform(rng, 1, 3));
        const auto dtype = static_cast<cpu::DType>(i % 3);
        const auto layout = i % 2 ? cpu::KvLayout::ragged : cpu::KvLayout::padded;
        cpu::DecodeTensors t(p, dtype, layout);
        t.fill_random(static_cast<std::uint64_t>(i) + Catch::rngSeed());
        const cpu::ReferenceOutput ref = cpu::reference_attention(t);
        for (const Schedule& s : every_plan(p, d, rng)) {
            CAPTURE(i, describe(p, d), strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), s.grid, s.snap, cpu::dtype_name(dtype));
            const cpu::Errors e = run_and_check(s, t, ref, 3);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= cpu::tolerance(dtype));
            REQUIRE(e.lse_max_abs <= 1e-4);
        }
    }
}

TEST_CASE("the executor never deadlocks: 1, 2, 3, 7 and 64 threads on grids of 1 to 300 CTAs") {
    Problem p;
    p.batch = 3;
    p.q_heads = 8;
    p.kv_heads = 4;
    p.head_dim = 32;
    p.tile = 16;
    p.ctx = {700, 90, 1500};  // 4 · (44 + 6 + 94) = 576 LeanTiles: every grid up to 300 splits outputs
    cpu::DecodeTensors t(p, cpu::DType::fp32, cpu::KvLayout::padded);
    t.fill_random(7);
    const cpu::ReferenceOutput ref = cpu::reference_attention(t);
    for (int threads : {1, 2, 3, 7, 64}) {
        for (std::int64_t grid : {1, 2, 5, 17, 64, 150, 300}) {
            for (std::int64_t per_sm : {1, 2}) {
                // grid CTAs resident at once: SMs × CTAs-per-SM = grid (rounded up), so the plan is valid. The
                // paper's rule with 1 CTA per SM, the aligned rule (snap 3: some starts move, some CTAs empty) with 2.
                const DeviceSpec d = test_device((grid + per_sm - 1) / per_sm, per_sm);
                PlanOptions o;
                o.grid = grid;
                if (per_sm == 1) o.stream_k_rule = StreamKRule::paper;
                else o.snap = 3;
                const Schedule s = make_schedule(p, d, o);
                CAPTURE(threads, grid, per_sm, stream_k_rule_name(s.stream_k_rule));
                const cpu::Errors e = run_and_check(s, t, ref, threads);
                REQUIRE(e.non_finite == 0);
                REQUIRE(e.rel_l2 <= 1e-5);
            }
        }
        // fixed-split's reduce pass waits behind a barrier, with 12 · splits CTAs (up to 300), and no-split.
        for (std::int64_t splits : {1, 3, 25}) {
            const Schedule s = plan_for(p, test_device(5, 1), Strategy::fixed_split, splits);
            CAPTURE(threads, splits, s.grid);
            const cpu::Errors e = run_and_check(s, t, ref, threads);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= 1e-5);
        }
        CAPTURE(threads);
        REQUIRE(run_and_check(plan_for(p, test_device(5, 1), Strategy::no_split), t, ref, threads).rel_l2 <= 1e-5);
    }
}

TEST_CASE("the output is bitwise identical across runs and thread counts for a given plan") {
    Problem p;
    p.batch = 2;
    p.q_heads = 16;
    p.kv_heads = 4;
    p.head_dim = 64;
    p.tile = 64;
    p.ctx = {5000, 777};
    cpu::DecodeTensors t(p, cpu::DType::fp32, cpu::KvLayout::ragged);
    t.fill_random(11);
    std::mt19937_64 rng(5);
    for (const Schedule& s : every_plan(p, test_device(13, 2), rng)) {
        t.poison_outputs();
        cpu::execute_plan(s, t, 1);
        const std::vector<float> first = t.o_float();
        const std::vector<float> first_lse = t.lse();
        for (int threads : {1, 2, 5, 16}) {
            t.poison_outputs();
            cpu::execute_plan(s, t, threads);
            CAPTURE(strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), threads);
            const std::vector<float> again = t.o_float();
            REQUIRE(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)) == 0);
            REQUIRE(std::memcmp(first_lse.data(), t.lse().data(), first_lse.size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("a plan made for other tensors is refused") {
    Problem p;
    p.q_heads = p.kv_heads = 2;
    p.head_dim = 16;
    p.tile = 16;
    p.ctx = {100};
    cpu::DecodeTensors t(p, cpu::DType::fp32, cpu::KvLayout::padded);
    Problem other = p;
    other.ctx = {200};
    CHECK_THROWS_AS(cpu::execute_plan(plan_for(other, test_device(4, 1), Strategy::stream_k), t, 2), InputError);
}

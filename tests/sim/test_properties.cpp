// Properties over random problems and devices (seeded by Catch's --rng-seed): accounting, bounds,
// determinism, monotonicity.
#include <catch2/catch.hpp>

#include <algorithm>

#include "plan_kinds.hpp"
#include "random_problems.hpp"
#include "sim_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;
using Catch::Detail::Approx;

namespace {

// A random problem small enough to simulate thousands of, on a device with the H100's timing.
struct Case {
    Problem problem;
    DeviceSpec device;
};

Case random_case(std::mt19937_64& rng, std::int64_t max_ctx = 1 << 16) {
    Case c{random_problem(rng, max_ctx), random_device(rng)};
    c.device.sms = log_uniform(rng, 1, 264);
    c.device.timing.hbm_partitions = uniform(rng, 0, 3) == 0 ? std::min<std::int64_t>(c.device.sms, uniform(rng, 2, 8)) : 1;
    return c;
}

}  // namespace

TEST_CASE("SM-time adds up: busy + reduce + waiting + idle = SMs x makespan, and timelines tile [0, makespan]") {
    auto rng = seeded_rng(1);
    for (int i = 0; i < 1000; ++i) {
        const Case c = random_case(rng);
        for (const Kind& kind : all_kinds) {
            CAPTURE(describe(c.problem, c.device), kind.name);
            const sim::SimResult r = run(c.problem, c.device, kind.strategy, 0, true, kind.rule);
            CHECK(r.busy_sm_ns + r.reduce_sm_ns + r.waiting_sm_ns + r.idle_sm_ns == Approx(r.sm_time_ns()).epsilon(1e-9));
            CHECK(r.occupancy() > 0.0);
            CHECK(r.occupancy() <= 1.0 + 1e-12);
            REQUIRE(r.timeline.size() == static_cast<std::size_t>(c.device.sms));
            for (const auto& sm : r.timeline) {
                REQUIRE(!sm.empty());
                CHECK(sm.front().begin_ns == 0.0);
                CHECK(sm.back().end_ns == r.makespan_ns);
                for (std::size_t k = 1; k < sm.size(); ++k) {
                    CHECK(sm[k].begin_ns == sm[k - 1].end_ns);
                    CHECK(sm[k].state != sm[k - 1].state);
                }
            }
        }
    }
}

TEST_CASE("no plan beats the memory: makespan >= launch + K/V bytes / peak bandwidth, and every strategy reads the same bytes") {
    auto rng = seeded_rng(2);
    for (int i = 0; i < 1000; ++i) {
        const Case c = random_case(rng);
        const sim::SimResult lean = run(c.problem, c.device, Strategy::stream_k);
        for (const Kind& kind : all_kinds) {
            CAPTURE(describe(c.problem, c.device), kind.name);
            const sim::SimResult r = run(c.problem, c.device, kind.strategy, 0, false, kind.rule);
            CHECK(r.kv_bytes == lean.kv_bytes);
            CHECK(r.makespan_ns >= c.device.timing.launch_overhead_ns + r.kv_bytes / c.device.timing.hbm_bandwidth_gb_per_s);
        }
    }
}

TEST_CASE("the same input gives the same output, to the bit") {
    auto rng = seeded_rng(3);
    for (int i = 0; i < 100; ++i) {
        const Case c = random_case(rng);
        for (const Kind& kind : all_kinds) {
            CAPTURE(describe(c.problem, c.device), kind.name);
            const sim::SimResult a = run(c.problem, c.device, kind.strategy, 0, true, kind.rule);
            const sim::SimResult b = run(c.problem, c.device, kind.strategy, 0, true, kind.rule);
            CHECK(a.makespan_ns == b.makespan_ns);
            CHECK(a.busy_sm_ns == b.busy_sm_ns);
            CHECK(a.waiting_sm_ns == b.waiting_sm_ns);
            REQUIRE(a.timeline.size() == b.timeline.size());
            for (std::size_t sm = 0; sm < a.timeline.size(); ++sm) {
                REQUIRE(a.timeline[sm].size() == b.timeline[sm].size());
                for (std::size_t k = 0; k < a.timeline[sm].size(); ++k) {
                    CHECK(a.timeline[sm][k].end_ns == b.timeline[sm][k].end_ns);
                    CHECK(a.timeline[sm][k].state == b.timeline[sm][k].state);
                }
            }
        }
    }
}

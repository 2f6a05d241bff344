// Simulated times worked out by hand: the model does exactly the arithmetic it claims.
#include <catch2/catch.hpp>

#include "sim_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;
using Catch::Detail::Approx;

namespace {
constexpr double launch = 2500.0;
constexpr double tile_ns = 1000.0;  // one LeanTile streamed at 65.536 B/ns
}  // namespace

TEST_CASE("equal tiles, one CTA per SM: the makespan is one launch plus one CTA's cost") {
    // 4 heads × 4 LeanTiles on 4 SMs. Every CTA: startup 800 + 4 tiles 4,000 + compute 4 · 60 + store 200 = 5,240 ns.
    const DeviceSpec d = hand_device(4);
    const Problem p = hand_problem(4, 1024);
    const double per_cta = 800.0 + 4 * tile_ns + 4 * 60.0 + 200.0;
    for (Strategy s : {Strategy::no_split, Strategy::stream_k}) {
        CAPTURE(std::string(strategy_name(s)));
        const sim::SimResult r = run(p, d, s);
        CHECK(r.grid == 4);
        CHECK(r.waves == 1);
        CHECK(r.makespan_ns == Approx(launch + per_cta).epsilon(1e-9));
        // Busy the whole time after the launch gap, on every SM; nothing waits, nothing reduces.
        CHECK(r.occupancy() == Approx(per_cta / (launch + per_cta)).epsilon(1e-9));
        CHECK(r.reduction_share() == Approx(0.0).margin(1e-12));
    }
}

TEST_CASE("when the SMs share the HBM, a stream runs at bytes in flight over the loaded latency") {
    // 4 SMs on 100 GB/s: L = 500 + 4 · 32768 / 100 = 1,810.72 ns; each SM reads 32768 / 1810.72 B/ns, so
    // a CTA's 4 LeanTiles (262,144 bytes) take 262144 · 1810.72 / 32768 = 14,485.76 ns.
    DeviceSpec d = hand_device(4);
    d.timing.hbm_bandwidth_gb_per_s = 100.0;
    const sim::SimResult r = run(hand_problem(4, 1024), d, Strategy::no_split);
    CHECK(r.makespan_ns == Approx(launch + 800.0 + 14485.76 + 240.0 + 200.0).epsilon(1e-9));
}

TEST_CASE("a no-split plan with a half-empty last wave: occupancy by hand") {
    // 6 outputs on 4 SMs: a full wave, then 2 CTAs on SMs 0 and 1 while SMs 2 and 3 idle.
    // Each CTA 5,240 ns (as above); makespan 2,500 + 2 · 5,240 = 12,980; busy 6 · 5,240 of 4 · 12,980.
    const sim::SimResult r = run(hand_problem(6, 1024), hand_device(4), Strategy::no_split);
    CHECK(r.waves == 2);
    CHECK(r.makespan_ns == Approx(12980.0).epsilon(1e-9));
    CHECK(r.occupancy() == Approx(6 * 5240.0 / (4 * 12980.0)).epsilon(1e-9));
    CHECK(r.idle_sm_fraction() == Approx(1.0 - 6 * 5240.0 / (4 * 12980.0)).epsilon(1e-9));
}

TEST_CASE("a fixed-split plan with a half-empty last wave, then its reduce launch: occupancy by hand") {
    // 3 outputs × 2 splits = 6 CTAs on 4 SMs. A split: startup 800 + 2 tiles 2,000 + compute 120 + partial 500 = 3,420 ns.
    // Reduce kernel, after a second launch gap: one CTA per output reads 2 · (64 + 2) · 4 = 528 bytes
    // (8.056640625 ns at 65.536 B/ns): 800 + 8.056640625 + 200 = 1,008.056640625 ns.
    // makespan = 2,500 + 2 · 3,420 + 2,500 + 1,008.0566 = 12,848.0566 ns; busy SM-time 6 · 3,420 + 3 · 1,008.0566.
    const sim::SimResult r = run(hand_problem(3, 1024), hand_device(4), Strategy::fixed_split, 2);
    const double split = 3420.0, reduce = 800.0 + 528.0 / 65.536 + 200.0;
    const double makespan = 2 * launch + 2 * split + reduce;
    CHECK(r.launches == 2);
    CHECK(r.waves == 2);
    CHECK(r.makespan_ns == Approx(makespan).epsilon(1e-9));
    CHECK(r.occupancy() == Approx((6 * split + 3 * reduce) / (4 * makespan)).epsilon(1e-9));
    // Reduction: 6 partial stores, the reduce kernel, and the second gap on all 4 SMs.
    CHECK(r.reduction_share() == Approx((6 * 500.0 + 3 * reduce + 4 * launch) / (4 * makespan)).epsilon(1e-9));
}

TEST_CASE("a stream-k host waits for each peer's flag, then merges it: the chain by hand") {
    // 1 output of 4 LeanTiles on 4 SMs: CTA g holds tile g. Peers 1–3 signal at 2,500 + 800 + 1,000 + 60 + 500 = 4,860.
    // The host finishes its tile at 4,360, waits until 4,860, then 3 merges of 250 + 350 and stores: 4,860 + 1,800 + 200.
    const sim::SimResult r = run(hand_problem(1, 1024), hand_device(4), Strategy::stream_k, 0, true);
    CHECK(r.makespan_ns == Approx(6860.0).epsilon(1e-9));
    CHECK(r.waiting_sm_ns == Approx(500.0).epsilon(1e-9));
    // SM 0's story: idle (launch), busy to 4,360, waiting to 4,860, reducing to 6,660, busy (store) to 6,860.
    const std::vector<sim::SmInterval>& sm0 = r.timeline.at(0);
    REQUIRE(sm0.size() == 5);
    CHECK(sm0[1].state == sim::SmState::busy);
    CHECK(sm0[2].state == sim::SmState::waiting);
    CHECK(sm0[2].begin_ns == Approx(4360.0).epsilon(1e-9));
    CHECK(sm0[3].state == sim::SmState::reduce);
    CHECK(sm0[3].end_ns == Approx(6660.0).epsilon(1e-9));
}

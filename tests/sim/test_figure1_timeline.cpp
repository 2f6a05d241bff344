// The paper's Figure 1 played out: all five SMs work until the reductions, and only the hosts reduce.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

// Figure 1: 5 SMs, 1 CTA each; 1 request, 2 heads of 5 LeanTiles (ctx 1280, tile 256); stream-k under the paper's rule.
sim::SimResult figure1(Strategy s) { return run(hand_problem(2, 1280), hand_device(5), s, 0, true, StreamKRule::paper); }

// Start of the earliest non-busy, non-idle interval on any SM: when the first reduction step begins.
double first_reduction_ns(const sim::SimResult& r) {
    double first = r.makespan_ns;
    for (const auto& sm : r.timeline) {
        for (const sim::SmInterval& iv : sm) {
            if (iv.state == sim::SmState::reduce || iv.state == sim::SmState::waiting) first = std::min(first, iv.begin_ns);
        }
    }
    return first;
}

}  // namespace

TEST_CASE("Figure 1, stream-k: all 5 SMs are busy from the launch until the first reduction step") {
    const sim::SimResult r = figure1(Strategy::stream_k);
    REQUIRE(r.timeline.size() == 5);
    const double start = hand_device(5).timing.launch_overhead_ns;
    const double reduction = first_reduction_ns(r);
    CHECK(reduction > start);
    for (std::size_t sm = 0; sm < 5; ++sm) {
        CAPTURE(sm);
        // Interval 0 is the launch gap; interval 1 is busy and lasts at least until the first reduction step.
        REQUIRE(r.timeline[sm].size() >= 2);
        CHECK(r.timeline[sm][0].state == sim::SmState::idle);
        CHECK(r.timeline[sm][1].state == sim::SmState::busy);
        CHECK(r.timeline[sm][1].begin_ns == start);
        CHECK(r.timeline[sm][1].end_ns >= reduction);
    }
}

TEST_CASE("Figure 1, stream-k: only the hosts (CTA0 for h0, CTA2 for h1) wait, and they finish last") {
    const sim::SimResult r = figure1(Strategy::stream_k);
    auto waits = [&](std::size_t sm) {
        return std::any_of(r.timeline[sm].begin(), r.timeline[sm].end(), [](const sim::SmInterval& iv) { return iv.state == sim::SmState::waiting; });
    };
    auto last_work = [&](std::size_t sm) {
        double end = 0.0;
        for (const sim::SmInterval& iv : r.timeline[sm]) if (iv.state != sim::SmState::idle) end = iv.end_ns;
        return end;
    };
    CHECK(waits(0));
    CHECK(!waits(1));
    CHECK(!waits(3));
    CHECK(!waits(4));
    for (std::size_t peer : {1u, 3u, 4u}) {
        CHECK(last_work(peer) < last_work(0));
        CHECK(last_work(peer) < last_work(2));
    }
    CHECK(std::max(last_work(0), last_work(2)) == r.makespan_ns);
}

TEST_CASE("Figure 1: stream-k keeps the SMs busier than fixed-split and no-split") {
    const sim::SimResult lean = figure1(Strategy::stream_k);
    const sim::SimResult fixed = figure1(Strategy::fixed_split);
    const sim::SimResult none = figure1(Strategy::no_split);
    CHECK(lean.occupancy() > fixed.occupancy());
    CHECK(lean.occupancy() > none.occupancy());
    CHECK(lean.makespan_ns < fixed.makespan_ns);  // one launch instead of two
    CHECK(none.grid == 2);                        // 3 of the 5 SMs never get a CTA
}

// The GPU walks plans exactly as the CPU does: a trivial kernel counts its visits to every LeanTile
// (after CUTLASS's stream-K scheduler test). Skips, with a message, where no GPU is found.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>

#include "../core/random_problems.hpp"
#include "core/schedule.hpp"
#include "core/walker.hpp"
#include "cuda/decode.hpp"
#include "cuda/plan_visits.cuh"

using namespace leanattn;
using namespace leanattn::testing;

TEST_CASE("on the GPU every LeanTile of every strategy's plan (stream-k under both rules and forced snaps) is visited exactly once") {
    std::string why;
    if (!cuda::device_available(&why)) {
        std::cout << "skipping the GPU plan walk: " << why << "\n";
        WARN("skipped: no CUDA device (" << why << ")");
        return;
    }
    auto rng = seeded_rng(7);
    for (int i = 0; i < 300; ++i) {
        const Problem p = random_problem(rng, 20000);
        const DeviceSpec d = random_device(rng);
        // stream-k: the paper's rule, the aligned rule's choice, and the aligned rule with a random snap.
        PlanOptions paper, aligned, snapped, fixed, none;
        paper.stream_k_rule = StreamKRule::paper;
        snapped.snap = log_uniform(rng, 1, 1 << 12);
        fixed.strategy = Strategy::fixed_split;
        none.strategy = Strategy::no_split;
        for (const PlanOptions& options : {paper, aligned, snapped, fixed, none}) {
            const Schedule s = make_schedule(p, d, options);
            CAPTURE(i, describe(p, d), strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), s.snap);
            const cuda::PlanVisits visits = cuda::walk_plan_on_device(s);
            REQUIRE(std::all_of(visits.tile_visits.begin(), visits.tile_visits.end(), [](int c) { return c == 1; }));
            for (std::int64_t g = 0; g < s.grid; ++g) {
                std::int32_t host_segments = 0;
                for (CtaWalker w(s.view(), g); w.valid(); w.advance()) ++host_segments;
                REQUIRE(visits.segments_per_cta[g] == host_segments);
            }
        }
    }
}

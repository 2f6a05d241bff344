// A plan made once for the cache's capacity, walked with the live, shorter lengths of a decode step: only the
// per-request arrays and I change (a CUDA graph replays the same grid, snap and strategy), and the grid may
// then exceed the LeanTiles. Every LeanTile must still be visited once, by contributors that are consecutive
// non-empty CTAs with the host first, under both stream-k rules.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/schedule.hpp"
#include "random_problems.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

// The request arrays of `live` lengths (each at most the capacity's), as the device would derive them.
struct LiveArrays {
    std::vector<std::int64_t> tiles, offset;
};

LiveArrays live_arrays(const Problem& p, const std::vector<std::int64_t>& live_ctx) {
    LiveArrays a;
    a.offset.push_back(0);
    for (std::int64_t c : live_ctx) {
        a.tiles.push_back((c + p.tile - 1) / p.tile);
        a.offset.push_back(a.offset.back() + p.outputs_per_request() * a.tiles.back());
    }
    return a;
}

void require_walks_live(const PlanView& v) {
    std::vector<int> visits(static_cast<std::size_t>(v.total_tiles), 0);
    std::vector<std::vector<std::int64_t>> holders(static_cast<std::size_t>(plan::outputs(v)));
    for (std::int64_t g = 0; g < v.grid; ++g) {
        bool first = true;
        for (CtaWalker w(v, g); w.valid(); w.advance(), first = false) {
            const Segment& s = w.current();
            REQUIRE(s.tiles() > 0);
            if (!first) REQUIRE(s.host);
            holders[static_cast<std::size_t>(s.output)].push_back(g);
            for (std::int64_t t = s.begin; t < s.end; ++t) ++visits[static_cast<std::size_t>(plan::output_offset(v, s.output) + t)];
        }
        // CTAs whose ideal start is I (G > I: all past the work) have nothing to do.
        if (plan::stream_k_ideal_start(v, g) == v.total_tiles) REQUIRE_FALSE(CtaWalker(v, g).valid());
    }
    REQUIRE(std::all_of(visits.begin(), visits.end(), [](int c) { return c == 1; }));
    for (std::int64_t o = 0; o < plan::outputs(v); ++o) {
        const std::vector<std::int64_t>& held = holders[static_cast<std::size_t>(o)];
        REQUIRE(static_cast<std::int64_t>(held.size()) == plan::contributor_count(v, o));
        for (std::size_t i = 0; i < held.size(); ++i) REQUIRE(held[i] == plan::contributor(v, o, static_cast<std::int64_t>(i)));
    }
}

}  // namespace

TEST_CASE("a plan made for the capacity walks shorter live lengths (the grid may exceed the LeanTiles), under both rules") {
    auto rng = seeded_rng(41);
    int grid_beyond_work = 0;
    for (int i = 0; i < 1000; ++i) {
        const Problem capacity = random_problem(rng, 4000);
        const DeviceSpec d = random_device(rng);
        // Live lengths: each request anywhere from 1 token to its capacity; a third of the time all very short.
        const bool tiny = uniform(rng, 0, 2) == 0;
        std::vector<std::int64_t> live;
        for (std::int64_t c : capacity.ctx) live.push_back(tiny ? uniform(rng, 1, std::min<std::int64_t>(c, capacity.tile)) : uniform(rng, 1, c));
        const LiveArrays a = live_arrays(capacity, live);
        for (StreamKRule rule : {StreamKRule::paper, StreamKRule::aligned}) {
            PlanOptions o;
            o.stream_k_rule = rule;
            const Schedule s = make_schedule(capacity, d, o);
            PlanView v = s.view();
            v.request_tiles = a.tiles.data();
            v.request_offset = a.offset.data();
            v.total_tiles = a.offset.back();
            CAPTURE(i, describe(capacity, d), stream_k_rule_name(rule), s.grid, s.snap, v.total_tiles);
            grid_beyond_work += v.grid > v.total_tiles ? 1 : 0;
            require_walks_live(v);
        }
    }
    CHECK(grid_beyond_work > 100);  // the case the CUDA graph path meets, well represented
}

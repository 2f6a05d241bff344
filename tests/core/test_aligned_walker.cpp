// The aligned rule as the walker yields it, for any snap: what walker.hpp argues (starts monotone, moved starts
// and empty CTAs on output boundaries, contributors consecutive with the host first, a CTA's only non-host
// segment its first), checked on random problems; snap 0 is the paper's plan exactly.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/input_error.hpp"
#include "core/schedule.hpp"
#include "core/schedule_table.hpp"
#include "core/validate.hpp"
#include "random_problems.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

Schedule plan_with_snap(const Problem& p, const DeviceSpec& d, std::int64_t snap) {
    PlanOptions o;
    o.snap = snap;
    return make_schedule(p, d, o);
}

// 0, 1, something random, the longest output's LeanTiles and far beyond it.
std::int64_t random_snap(std::mt19937_64& rng) {
    switch (uniform(rng, 0, 4)) {
        case 0: return 0;
        case 1: return 1;
        case 2: return log_uniform(rng, 2, 1 << 14);
        case 3: return std::int64_t{1} << 40;
        default: return uniform(rng, 2, 64);
    }
}

// Calls check(schedule) on `count` random problems and devices, each planned by the aligned rule with a random snap.
template <typename Check>
void for_random_snapped_plans(std::uint64_t salt, int count, std::int64_t max_ctx, Check&& check) {
    auto rng = seeded_rng(salt);
    for (int i = 0; i < count; ++i) {
        const Problem p = random_problem(rng, max_ctx);
        const DeviceSpec d = random_device(rng);
        const Schedule s = plan_with_snap(p, d, random_snap(rng));
        CAPTURE(i, describe(p, d), s.snap);
        check(s);
    }
}

bool on_boundary(const PlanView& v, std::int64_t x) {
    return x == 0 || x == v.total_tiles || x == plan::output_offset(v, plan::output_of_iteration(v, x));
}

// The structure every stream-k plan must have, checked from what the walker yields (not from the starts).
void require_contributor_structure(const PlanView& v) {
    std::vector<std::vector<std::int64_t>> holders(static_cast<std::size_t>(plan::outputs(v)));
    for (std::int64_t g = 0; g < v.grid; ++g) {
        std::int64_t i = 0, segments = 0;
        for (CtaWalker w(v, g); w.valid(); w.advance(), ++i) ++segments;
        i = 0;
        for (CtaWalker w(v, g); w.valid(); w.advance(), ++i) {
            const Segment& s = w.current();
            holders[static_cast<std::size_t>(s.output)].push_back(g);
            if (i > 0) REQUIRE(s.host);                                  // only the first segment may be a peer's
            if (s.host && !s.finishing) REQUIRE(i == segments - 1);     // a host that waits ends its CTA's range
        }
    }
    for (std::int64_t o = 0; o < plan::outputs(v); ++o) {
        CAPTURE(o);
        const std::vector<std::int64_t>& held = holders[static_cast<std::size_t>(o)];
        REQUIRE(static_cast<std::int64_t>(held.size()) == plan::contributor_count(v, o));
        for (std::size_t i = 0; i < held.size(); ++i) REQUIRE(held[i] == plan::contributor(v, o, static_cast<std::int64_t>(i)));
        CtaWalker host(v, plan::host_cta(v, o));
        REQUIRE(host.valid());  // the host is never an empty CTA
    }
}

}  // namespace

TEST_CASE("aligned with snap 0 is the paper's plan, CTA by CTA") {
    auto rng = seeded_rng(21);
    for (int i = 0; i < 1000; ++i) {
        const Problem p = random_problem(rng);
        const DeviceSpec d = random_device(rng);
        PlanOptions paper;
        paper.stream_k_rule = StreamKRule::paper;
        const Schedule a = plan_with_snap(p, d, 0), b = make_schedule(p, d, paper);
        CAPTURE(describe(p, d));
        REQUIRE(a.grid == b.grid);
        for (std::int64_t g = 0; g <= a.grid; ++g) REQUIRE(plan::stream_k_start(a.view(), g) == plan::stream_k_start(b.view(), g));
        for (std::int64_t o = 0; o < p.outputs(); ++o) REQUIRE(plan::host_cta(a.view(), o) == plan::host_cta(b.view(), o));
    }
}

TEST_CASE("for any snap, CTA starts never decrease, stay within snap of the ideal start and move only onto output boundaries") {
    for_random_snapped_plans(22, 2000, 1 << 20, [](const Schedule& s) {
        const PlanView v = s.view();
        REQUIRE(plan::stream_k_start(v, 0) == 0);
        REQUIRE(plan::stream_k_start(v, s.grid) == s.total_tiles);
        for (std::int64_t g = 0; g < s.grid; ++g) {
            const std::int64_t start = plan::stream_k_start(v, g), next = plan::stream_k_start(v, g + 1);
            const std::int64_t ideal = plan::stream_k_ideal_start(v, g);
            REQUIRE(start <= next);
            REQUIRE(std::abs(start - ideal) <= s.snap);
            if (start != ideal) REQUIRE(on_boundary(v, start));
            if (start == next) REQUIRE(on_boundary(v, start));  // an empty CTA sits on a boundary
        }
    });
}

TEST_CASE("for any snap, an output's contributors are consecutive non-empty CTAs, host first, and a CTA's only non-host segment is its first") {
    for_random_snapped_plans(23, 2000, 4000, [](const Schedule& s) {
        require_contributor_structure(s.view());
        const std::vector<std::string> problems = validate_schedule(s, tabulate(s));
        if (!problems.empty()) FAIL(problems.front());
    });
}

TEST_CASE("stream_k_cta_of names the CTA whose range holds each LeanTile, for any snap") {
    for_random_snapped_plans(24, 500, 3000, [](const Schedule& s) {
        const PlanView v = s.view();
        for (std::int64_t g = 0; g < s.grid; ++g) {
            const IterRange r = plan::stream_k_range(v, g);
            for (std::int64_t t = r.begin; t < r.end; ++t) REQUIRE(plan::stream_k_cta_of(v, t) == g);
        }
    });
}

TEST_CASE("a walker given a CTA's stream-k range walks exactly what the walker given the CTA walks, for any snap") {
    for_random_snapped_plans(0x7a9c, 150, 1 << 16, [](const Schedule& s) {
        const PlanView v = s.view();
        for (std::int64_t g = 0; g < v.grid; ++g) {
            CtaWalker by_cta(v, g), by_range(v, IterRange{plan::stream_k_start(v, g), plan::stream_k_start(v, g + 1)});
            for (; by_cta.valid(); by_cta.advance(), by_range.advance()) {
                REQUIRE(by_range.valid());
                const Segment a = by_cta.current(), b = by_range.current();
                REQUIRE(a.output == b.output);
                REQUIRE(a.begin == b.begin);
                REQUIRE(a.end == b.end);
                REQUIRE(a.host == b.host);
                REQUIRE(a.finishing == b.finishing);
            }
            REQUIRE_FALSE(by_range.valid());
        }
    });
}

TEST_CASE("a snap of the longest output or more puts every CTA start on a boundary: no output is split") {
    auto rng = seeded_rng(25);
    for (int i = 0; i < 500; ++i) {
        const Problem p = random_problem(rng);
        const DeviceSpec d = random_device(rng);
        const Schedule s = plan_with_snap(p, d, std::int64_t{1} << 40);
        CAPTURE(describe(p, d));
        const std::int64_t n_max = *std::max_element(s.request_tiles.begin(), s.request_tiles.end());
        REQUIRE(s.snap == n_max);  // stored clamped: beyond it nothing changes
        for (std::int64_t o = 0; o < p.outputs(); ++o) REQUIRE(plan::contributor_count(s.view(), o) == 1);
    }
}

TEST_CASE("the validator catches an aligned plan whose starts break the rule") {
    Problem p;
    p.batch = 1;
    p.q_heads = p.kv_heads = 3;
    p.tile = 16;
    p.ctx = {16 * 10};  // 3 outputs of 10 LeanTiles
    DeviceSpec d;
    d.sms = 4;
    d.ctas_per_sm = 1;
    const Schedule s = plan_with_snap(p, d, 3);  // ideal starts 0, 8, 16, 23, 30 → 0, 10, 16, 20, 30
    const ScheduleTable good = tabulate(s);
    REQUIRE(validate_schedule(s, good).empty());
    REQUIRE(plan::stream_k_start(s.view(), 1) == 10);
    auto says = [](const std::vector<std::string>& problems, const std::string& what) {
        return std::any_of(problems.begin(), problems.end(), [&](const std::string& m) { return m.find(what) != std::string::npos; });
    };

    SECTION("a start further from its ideal start than the snap") {
        Schedule tighter = s;
        tighter.snap = 1;  // CTA 1 moved 2 LeanTiles
        CHECK(says(validate_schedule(tighter, good), "from its ideal start"));
    }
    SECTION("a moved start that is not on an output boundary") {
        ScheduleTable t = good;  // CTA 0 takes output 1's first LeanTile: CTA 1 starts at 11, inside output 1
        t.ctas[0].segments.push_back(Segment{1, 0, 1, true, false, true});
        t.ctas[0].tiles += 1;
        Segment& first = t.ctas[1].segments.front();
        first.begin = 1;
        first.host = false;
        t.ctas[1].tiles -= 1;
        CHECK(says(validate_schedule(s, t), "not an output boundary"));
    }
}

TEST_CASE("a forced snap is refused with the paper's rule or another strategy, and when negative") {
    Problem p;
    p.ctx = {4096};
    PlanOptions o;
    o.snap = 4;
    o.stream_k_rule = StreamKRule::paper;
    CHECK_THROWS_AS(make_schedule(p, DeviceSpec{}, o), InputError);
    o.stream_k_rule = StreamKRule::aligned;
    o.strategy = Strategy::no_split;
    CHECK_THROWS_AS(make_schedule(p, DeviceSpec{}, o), InputError);
    o.strategy = Strategy::stream_k;
    o.snap = -1;
    CHECK_THROWS_AS(make_schedule(p, DeviceSpec{}, o), InputError);
    o.snap = 4;
    CHECK(make_schedule(p, DeviceSpec{}, o).snap == 4);
}

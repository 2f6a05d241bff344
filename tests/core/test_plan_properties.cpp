// Every plan of every strategy (stream-k under both rules), on thousands of random problems, has the properties
// core/validate.hpp lists.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/input_error.hpp"
#include "core/schedule.hpp"
#include "core/schedule_table.hpp"
#include "core/validate.hpp"
#include "plan_kinds.hpp"
#include "random_problems.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

Schedule make_plan(const Problem& p, const DeviceSpec& d, Strategy strategy, StreamKRule rule = StreamKRule::paper) {
    PlanOptions options;
    options.strategy = strategy;
    options.stream_k_rule = rule;
    return make_schedule(p, d, options);
}

}  // namespace

TEST_CASE("every plan of 10,000 random problems passes the validator, for every strategy and both stream-k rules") {
    auto rng = seeded_rng(1);
    std::int64_t plans = 0;
    for (int i = 0; i < 10000; ++i) {
        const Problem p = random_problem(rng);
        const DeviceSpec d = random_device(rng);
        for (const Kind& kind : all_kinds) {
            const Schedule s = make_plan(p, d, kind.strategy, kind.rule);
            CAPTURE(i, describe(p, d), kind.name);
            REQUIRE_NOTHROW(check_coresidency(s));
            const std::vector<std::string> problems = validate_schedule(s, tabulate(s));
            if (!problems.empty()) FAIL(problems.front());
            ++plans;
        }
    }
    CHECK(plans == 40000);
}

// Calls f(cta, segment) for every segment of every CTA, in CTA order.
template <typename F>
void for_each_segment(const PlanView& v, std::int64_t grid, F f) {
    for (std::int64_t g = 0; g < grid; ++g) {
        for (CtaWalker w(v, g); w.valid(); w.advance()) f(g, w.current());
    }
}

TEST_CASE("walking every CTA visits every LeanTile exactly once (counted tile by tile on small problems)") {
    auto rng = seeded_rng(2);
    for (int i = 0; i < 2000; ++i) {
        const Problem p = random_problem(rng, 4000);
        const DeviceSpec d = random_device(rng);
        for (const Kind& kind : all_kinds) {
            const Schedule s = make_plan(p, d, kind.strategy, kind.rule);
            const PlanView v = s.view();
            CAPTURE(i, describe(p, d), kind.name);
            std::vector<int> visits(static_cast<std::size_t>(s.total_tiles), 0);
            for_each_segment(v, s.grid, [&](std::int64_t, const Segment& seg) {
                for (std::int64_t t = seg.begin; t < seg.end; ++t) ++visits[plan::output_offset(v, seg.output) + t];
            });
            REQUIRE(std::all_of(visits.begin(), visits.end(), [](int c) { return c == 1; }));
        }
    }
}

TEST_CASE("a segment knows from itself whether it is split and, when it hosts, how many CTAs contribute") {
    auto rng = seeded_rng(3);
    for (int i = 0; i < 2000; ++i) {
        const Problem p = random_problem(rng, 20000);
        const DeviceSpec d = random_device(rng);
        for (const Kind& kind : all_kinds) {
            const Schedule s = make_plan(p, d, kind.strategy, kind.rule);
            const PlanView v = s.view();
            CAPTURE(i, describe(p, d), kind.name);
            for_each_segment(v, s.grid, [&](std::int64_t cta, const Segment& seg) {
                const std::int64_t contributors = plan::contributor_count(v, seg.output);
                REQUIRE(plan::segment_is_split(seg) == (contributors > 1));
                if (!seg.host) return;
                REQUIRE(plan::host_cta(v, seg.output) == cta);
                REQUIRE(plan::host_contributors(v, cta, seg) == contributors);
            });
        }
    }
}

TEST_CASE("stream-k under the paper's rule uses min(SMs x CTAs per SM, LeanTiles) CTAs whose loads differ by at most one LeanTile") {
    auto rng = seeded_rng(3);
    for (int i = 0; i < 2000; ++i) {
        const Problem p = random_problem(rng);
        const DeviceSpec d = random_device(rng);
        const Schedule s = make_plan(p, d, Strategy::stream_k);
        CAPTURE(describe(p, d));
        REQUIRE(s.grid == std::min(d.resident_ctas(), s.total_tiles));
        std::int64_t lo = s.total_tiles, hi = 0;
        for (std::int64_t g = 0; g < s.grid; ++g) {
            const IterRange r = plan::stream_k_range(s.view(), g);
            lo = std::min(lo, r.end - r.begin);
            hi = std::max(hi, r.end - r.begin);
        }
        REQUIRE(hi - lo <= 1);
        REQUIRE(lo == s.total_tiles / s.grid);
    }
}

TEST_CASE("in a ragged batch each request contributes its own LeanTile count, with no padding") {
    Problem p;
    p.batch = 3;
    p.q_heads = p.kv_heads = 4;
    p.tile = 128;
    p.ctx = {1, 100000, 129};
    const Schedule s = make_plan(p, DeviceSpec{}, Strategy::stream_k, StreamKRule::aligned);
    CHECK(s.total_tiles == 4 * (1 + 782 + 2));
    const ScheduleTable t = tabulate(s);
    CHECK(t.outputs[0].tiles == 1);
    CHECK(t.outputs[4].tiles == 782);
    CHECK(t.outputs[8].tiles == 2);
}

TEST_CASE("fixed-split chunks come from the longest request and a shorter request's empty chunks are CTAs that exit at once") {
    Problem p;
    p.batch = 2;
    p.q_heads = p.kv_heads = 1;
    p.tile = 16;
    p.ctx = {160, 16};  // 10 LeanTiles and 1
    PlanOptions options;
    options.strategy = Strategy::fixed_split;
    options.splits = 4;
    const Schedule s = make_schedule(p, DeviceSpec{}, options);
    CHECK(s.chunk == 3);
    CHECK(s.grid == 8);
    const ScheduleTable t = tabulate(s);
    CHECK(t.ctas[3].tiles == 1);  // [9,10): the rest
    CHECK(t.ctas[4].tiles == 1);  // request 1's only LeanTile
    for (int g = 5; g < 8; ++g) CHECK(t.ctas[g].segments.empty());
    CHECK(t.outputs[1].ctas == std::vector<std::int64_t>{4});
    CHECK(validate_schedule(s, t).empty());
}

TEST_CASE("the validator catches a plan that is broken") {
    Problem p;
    p.batch = 2;
    p.q_heads = p.kv_heads = 3;
    p.tile = 16;
    p.ctx = {100, 300};
    DeviceSpec d;
    d.sms = 4;
    d.ctas_per_sm = 1;
    const Schedule s = make_plan(p, d, Strategy::stream_k);
    const ScheduleTable good = tabulate(s);
    REQUIRE(validate_schedule(s, good).empty());

    SECTION("a LeanTile left out") {
        ScheduleTable t = good;
        t.ctas[1].segments.front().end -= 1;
        CHECK_FALSE(validate_schedule(s, t).empty());
    }
    SECTION("a LeanTile done twice") {
        ScheduleTable t = good;
        t.ctas[2].segments.front().begin -= 1;
        CHECK_FALSE(validate_schedule(s, t).empty());
    }
    SECTION("a wrong host flag") {
        ScheduleTable t = good;
        t.ctas[0].segments.front().host = false;
        CHECK_FALSE(validate_schedule(s, t).empty());
    }
    SECTION("contributors listed out of order") {
        ScheduleTable t = good;
        auto it = std::find_if(t.outputs.begin(), t.outputs.end(), [](const OutputRow& o) { return o.ctas.size() > 1; });
        REQUIRE(it != t.outputs.end());
        std::reverse(it->ctas.begin(), it->ctas.end());
        CHECK_FALSE(validate_schedule(s, t).empty());
    }
    SECTION("unbalanced stream-k CTAs") {
        ScheduleTable t = good;
        t.ctas[0].tiles += 2;
        CHECK_FALSE(validate_schedule(s, t).empty());
    }
}

TEST_CASE("a stream-k plan whose host would wait on a CTA that is not co-resident is refused, under either rule") {
    Problem p;
    p.q_heads = p.kv_heads = 1;
    p.tile = 16;
    p.ctx = {16 * 10};
    DeviceSpec d;
    d.name = "tiny";
    d.sms = 2;
    d.ctas_per_sm = 1;
    PlanOptions options;
    options.stream_k_rule = StreamKRule::paper;
    options.grid = 5;  // 5 CTAs on 2 resident slots; CTA 0 hosts the one output and would wait on CTA 4
    CHECK_THROWS_AS(make_schedule(p, d, options), InputError);
    options.grid = 2;
    CHECK_NOTHROW(make_schedule(p, d, options));
    // Aligned, ideal starts 0, 2, 4, 6, 8: with snap 1 nothing moves but onto 0 and 10, and CTA 0 would wait on
    // CTA 4 again; with snap 10 the starts are 0, 0, 0, 10, 10: CTA 2 holds the whole output and waits on no one.
    options.stream_k_rule = StreamKRule::aligned;
    options.grid = 5;
    options.snap = 1;
    CHECK_THROWS_AS(make_schedule(p, d, options), InputError);
    options.snap = 10;
    const Schedule whole = make_schedule(p, d, options);
    CHECK(plan::host_cta(whole.view(), 0) == 2);
    CHECK(plan::contributor_count(whole.view(), 0) == 1);
    CHECK_NOTHROW(check_coresidency(whole));
}

TEST_CASE("stream-k generalises: as many CTAs as outputs of equal length gives FlashAttention-2's one CTA per output") {
    Problem p;
    p.batch = 2;
    p.q_heads = p.kv_heads = 5;
    p.tile = 64;
    p.ctx = {64 * 7, 64 * 7};
    DeviceSpec d;
    d.sms = 10;
    d.ctas_per_sm = 1;
    const ScheduleTable t = tabulate(make_plan(p, d, Strategy::stream_k));
    for (const CtaRow& row : t.ctas) {
        REQUIRE(row.segments.size() == 1);
        CHECK(row.segments[0].host);
        CHECK(row.segments[0].finishing);
    }
}

// The paper's Figure 1, exactly: 5 SMs, 2 heads of 5 LeanTiles each, stream-k under the paper's rule.
#include <catch2/catch.hpp>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"
#include "core/validate.hpp"

using namespace leanattn;

namespace {

Schedule figure1(Strategy strategy) {
    Problem p;
    p.batch = 1;
    p.q_heads = 2;
    p.kv_heads = 2;
    p.head_dim = 64;
    p.tile = 256;
    p.ctx = {1280};
    DeviceSpec d;
    d.name = "paper-5sm";
    d.sms = 5;
    d.ctas_per_sm = 1;
    PlanOptions options;
    options.strategy = strategy;
    options.stream_k_rule = StreamKRule::paper;  // the figure is the paper's rule, named explicitly
    return make_schedule(p, d, options);
}

struct Expected {
    std::int64_t output, begin, end;
    bool host, finishing;
};

void require_segments(const CtaRow& row, std::initializer_list<Expected> expected) {
    CAPTURE(row.cta);
    REQUIRE(row.segments.size() == expected.size());
    std::size_t i = 0;
    for (const Expected& e : expected) {
        const Segment& s = row.segments[i++];
        CHECK(s.output == e.output);
        CHECK(s.begin == e.begin);
        CHECK(s.end == e.end);
        CHECK(s.host == e.host);
        CHECK(s.finishing == e.finishing);
    }
}

}  // namespace

TEST_CASE("Figure 1: stream-k gives each of the 5 CTAs two LeanTiles, crossing the head boundary in CTA2") {
    const Schedule s = figure1(Strategy::stream_k);
    REQUIRE(s.grid == 5);
    REQUIRE(s.launches == 1);
    REQUIRE(s.total_tiles == 10);
    const ScheduleTable t = tabulate(s);
    require_segments(t.ctas[0], {{0, 0, 2, true, false}});
    require_segments(t.ctas[1], {{0, 2, 4, false, false}});
    require_segments(t.ctas[2], {{0, 4, 5, false, true}, {1, 0, 1, true, false}});
    require_segments(t.ctas[3], {{1, 1, 3, false, false}});
    require_segments(t.ctas[4], {{1, 3, 5, false, true}});
    for (const CtaRow& row : t.ctas) CHECK(row.sm == row.cta);
}

TEST_CASE("Figure 1: output 0 is reduced by CTA0 from CTAs 0,1,2 and output 1 by CTA2 from CTAs 2,3,4") {
    const ScheduleTable t = tabulate(figure1(Strategy::stream_k));
    REQUIRE(t.outputs.size() == 2);
    CHECK(t.outputs[0].host_cta == 0);
    CHECK(t.outputs[0].ctas == std::vector<std::int64_t>{0, 1, 2});
    CHECK(t.outputs[1].host_cta == 2);
    CHECK(t.outputs[1].ctas == std::vector<std::int64_t>{2, 3, 4});
}

TEST_CASE("Figure 1: the baselines leave SMs idle") {
    const Schedule none = figure1(Strategy::no_split);
    CHECK(none.grid == 2);  // two CTAs of 5 LeanTiles: 3 of 5 SMs idle
    const Schedule fixed = figure1(Strategy::fixed_split);
    // bnm = 2 row-blocks on 2 × 5 slots; n = 5: s = 1..5, chunk 5,3,2,2,1 (s = 4 skipped); eff(5) = 1 is the
    // maximum and s = 5 is the first with eff ≥ 0.85.
    CHECK(fixed.splits == 5);
    CHECK(fixed.grid == 10);
    CHECK(fixed.launches == 2);
    for (const Schedule* s : {&none, &fixed}) CHECK(validate_schedule(*s, tabulate(*s)).empty());
}

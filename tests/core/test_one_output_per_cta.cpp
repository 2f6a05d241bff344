// A stream-k plan whose CTA g holds exactly output g, whole, is the no-split plan by another name: a live step
// of one walks as no-split (core/live_plan.hpp), whose set-up is shorter on the GPU. What must hold: the test
// says yes exactly when the walk shows it, and the segments walked are the same either way, CTA by CTA.
#include <catch2/catch.hpp>

#include <vector>

#include "core/live_plan.hpp"
#include "core/tensor_layout.hpp"
#include "core/walker.hpp"
#include "random_problems.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

std::vector<Segment> segments_of(const PlanView& v, std::int64_t cta) {
    std::vector<Segment> out;
    for (CtaWalker w(v, cta); w.valid(); w.advance()) out.push_back(w.current());
    return out;
}

// What one_output_per_cta claims, found by walking: grid = outputs, and CTA g's only segment is output g, whole
// (or nothing at all where output g has no live LeanTile).
bool walk_shows_one_output_per_cta(const PlanView& v) {
    if (v.grid != plan::outputs(v)) return false;
    for (std::int64_t g = 0; g < v.grid; ++g) {
        const std::vector<Segment> s = segments_of(v, g);
        if (plan::output_tiles(v, g) == 0 ? !s.empty() : s.size() != 1 || s[0].output != g || !s[0].host || !s[0].finishing) return false;
    }
    return true;
}

bool same_segments(const Segment& a, const Segment& b) {
    return a.output == b.output && a.begin == b.begin && a.end == b.end && a.host == b.host && a.finishing == b.finishing;
}

// Stream-k plans that often hold one output per CTA: the grid forced to the outputs, whole outputs or the paper's.
Schedule grid_of_outputs(const Problem& p, const DeviceSpec& d, bool paper) {
    PlanOptions o{.strategy = Strategy::stream_k, .grid = p.outputs()};
    if (paper) o.stream_k_rule = StreamKRule::paper; else o.snap = std::int64_t{1} << 20;
    return make_schedule(p, d, o);
}

}  // namespace

TEST_CASE("one_output_per_cta says yes exactly when every CTA walks its own output whole, and never for other strategies") {
    auto rng = seeded_rng(31);
    int yes = 0, no = 0;
    for (int i = 0; i < 600; ++i) {
        Problem p = random_problem(rng, 5000);
        if (i % 2 == 0) p.ctx.assign(p.ctx.size(), p.ctx[0]);  // uniform batches: where the answer is often yes
        DeviceSpec d = random_device(rng);
        d.ctas_per_sm = std::max<std::int64_t>(d.ctas_per_sm, (p.outputs() + d.sms - 1) / d.sms);  // the grid resides
        for (bool paper : {false, true}) {
            const Schedule s = grid_of_outputs(p, d, paper);
            CAPTURE(i, describe(p, d), paper);
            const bool claim = plan::one_output_per_cta(s.view());
            REQUIRE(claim == walk_shows_one_output_per_cta(s.view()));
            REQUIRE(s.one_output_per_cta == claim);
            (claim ? yes : no) += 1;
        }
        for (Strategy other : {Strategy::no_split, Strategy::fixed_split}) REQUIRE_FALSE(plan::one_output_per_cta(make_schedule(p, d, {other}).view()));
    }
    CHECK(yes > 100);
    CHECK(no > 100);
}

TEST_CASE("a live step walks as no-split exactly when its stream-k plan holds one output per CTA, and walks the same segments") {
    auto rng = seeded_rng(32);
    int converted = 0, kept = 0;
    for (int i = 0; i < 600; ++i) {
        Problem p = random_problem(rng, 5000);
        if (i % 2 == 0) p.ctx.assign(p.ctx.size(), p.ctx[0]);
        DeviceSpec d = random_device(rng);
        d.ctas_per_sm = std::max<std::int64_t>(d.ctas_per_sm, (p.outputs() + d.sms - 1) / d.sms);
        const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
        std::vector<std::int32_t> lengths = random_live_lengths(rng, p);
        if (i % 3 == 0) lengths.assign(t.seqlens.begin(), t.seqlens.end());                   // at capacity
        if (i % 3 == 1) std::fill(lengths.begin(), lengths.end(), *std::min_element(lengths.begin(), lengths.end()));  // all alike
        for (bool paper : {false, true}) {
            const Schedule s = grid_of_outputs(p, d, paper);
            std::vector<std::int64_t> tiles(static_cast<std::size_t>(p.batch)), offset(tiles.size() + 1);
            const PlanView live = live_view(s, t.views.kv, lengths.data(), tiles.data(), offset.data());
            PlanView as_stream_k = live;
            as_stream_k.strategy = Strategy::stream_k;
            CAPTURE(i, describe(p, d), paper);
            REQUIRE((live.strategy == Strategy::no_split) == plan::one_output_per_cta(as_stream_k));
            for (std::int64_t g = 0; g < live.grid; ++g) {
                const std::vector<Segment> a = segments_of(live, g), b = segments_of(as_stream_k, g);
                REQUIRE(a.size() == b.size());
                for (std::size_t k = 0; k < a.size(); ++k) REQUIRE(same_segments(a[k], b[k]));
            }
            (live.strategy == Strategy::no_split ? converted : kept) += 1;
        }
    }
    CHECK(converted > 100);
    CHECK(kept > 100);
}

TEST_CASE("B=4 H=32 d=64 ctx 1k on an H100: the aligned rule's plan is one output per CTA, at capacity and shorter alike, but a ragged step is not") {
    Problem p;
    p.batch = 4, p.q_heads = 32, p.kv_heads = 32, p.head_dim = 64, p.q_len = 1;
    p.ctx.assign(4, 1024);
    DeviceSpec h100;  // the defaults: 132 SMs; the decode kernel's one CTA per SM
    h100.ctas_per_sm = 1;
    const Schedule s = make_schedule(p, h100, {});
    REQUIRE(s.grid == 128);
    CHECK(s.one_output_per_cta);
    CHECK(s.strategy == Strategy::stream_k);  // the plan keeps its name: only its walk changes
    const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
    std::vector<std::int64_t> tiles(4), offset(5);
    const auto strategy_at = [&](std::vector<std::int32_t> lengths) {
        return live_view(s, t.views.kv, lengths.data(), tiles.data(), offset.data()).strategy;
    };
    CHECK(strategy_at({1024, 1024, 1024, 1024}) == Strategy::no_split);
    CHECK(strategy_at({700, 700, 700, 700}) == Strategy::no_split);
    CHECK(strategy_at({1024, 200, 200, 200}) == Strategy::stream_k);
}

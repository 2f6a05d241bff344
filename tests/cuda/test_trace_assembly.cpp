// The per-CTA trace read back and lined up with the plan (cuda/trace.hpp), on the CPU: records made up the
// way the traced kernel writes them, for random plans walked with live lengths.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "../core/random_problems.hpp"
#include "core/live_plan.hpp"
#include "core/tensor_layout.hpp"
#include "core/walker.hpp"
#include "cuda/trace.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

struct Records {
    std::vector<cuda::TraceCtaRecord> ctas;
    std::vector<cuda::TraceSegmentRecord> segments;
    std::int64_t per_cta = 0;
};

constexpr std::uint64_t origin = 7'000'000'000;  // a %globaltimer reading: ns since some epoch

// CTA g starts at origin + 100 g (CTA 0 first), has its plan 20 ns later and staged 30 ns after that; each
// segment streams 1000 ns, then merges/stores for 50 ns, with a 30-ns wait inside when it is a stream-k host
// with peers.
Records made_up_records(const Schedule& s, const PlanView& live) {
    Records r;
    r.per_cta = cuda::trace_segments_per_cta(live);
    r.ctas.resize(static_cast<std::size_t>(live.grid));
    r.segments.resize(static_cast<std::size_t>(live.grid * r.per_cta));
    for (std::int64_t g = 0; g < live.grid; ++g) {
        std::uint64_t t = origin + 100 * static_cast<std::uint64_t>(g);
        cuda::TraceCtaRecord& c = r.ctas[static_cast<std::size_t>(g)];
        c.start_ns = t;
        c.plan_wait_ns = t += 20;
        c.plan_ready_ns = t += 30;
        c.sm = static_cast<std::uint32_t>(g % 7);
        for (CtaWalker w(live, g); w.valid(); w.advance(), ++c.segments) {
            cuda::TraceSegmentRecord& seg = r.segments[static_cast<std::size_t>(g * r.per_cta + c.segments)];
            seg.stream_begin_ns = t;
            seg.stream_end_ns = t += 1000;
            if (w.current().host && s.fused_reduction() && plan::contributor_count(live, w.current().output) > 1) {
                seg.wait_begin_ns = t + 10;
                seg.wait_end_ns = t + 40;
            }
            seg.finish_end_ns = t += 50;
        }
        c.end_ns = t + 5;
    }
    return r;
}

}  // namespace

TEST_CASE("a trace lines every CTA's records up with its segments in the plan, in ns from the first CTA start") {
    auto rng = seeded_rng(41);
    for (int i = 0; i < 300; ++i) {
        const Problem p = random_problem(rng, 20000);
        const DeviceSpec d = random_device(rng);
        const TensorLayout layout = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
        const std::vector<std::int32_t> lengths = random_live_lengths(rng, p);
        for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
            const Schedule s = make_schedule(p, d, PlanOptions{.strategy = strategy});
            std::vector<std::int64_t> tiles(static_cast<std::size_t>(p.batch)), offsets(tiles.size() + 1);
            const PlanView live = live_view(s, layout.views.kv, lengths.data(), tiles.data(), offsets.data());
            const Records r = made_up_records(s, live);
            CAPTURE(i, describe(p, d), strategy_name(strategy));
            const cuda::KernelTrace trace = cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta);
            REQUIRE(trace.grid == s.grid);
            REQUIRE(trace.snap == s.snap);      // what a replay of the trace remakes the plan with
            REQUIRE(trace.splits == s.splits);
            REQUIRE(trace.total_tiles == live.total_tiles);
            REQUIRE(static_cast<std::int64_t>(trace.ctas.size()) == s.grid);
            std::int64_t most = 0;
            for (const cuda::CtaTimes& c : trace.ctas) {
                REQUIRE(c.start_ns == 100 * c.cta);
                REQUIRE(c.sm == c.cta % 7);
                REQUIRE(c.plan_wait_ns == c.start_ns + 20);
                REQUIRE(c.plan_ready_ns == c.start_ns + 50);
                most = std::max<std::int64_t>(most, static_cast<std::int64_t>(c.segments.size()));
                CtaWalker w(live, c.cta);
                std::int64_t t = c.plan_ready_ns;
                for (const cuda::SegmentTimes& seg : c.segments) {
                    REQUIRE(w.valid());
                    REQUIRE(seg.segment.output == w.current().output);
                    REQUIRE(seg.segment.begin == w.current().begin);
                    REQUIRE(seg.segment.end == w.current().end);
                    REQUIRE(seg.batch == p.request_of(seg.segment.output));
                    REQUIRE(seg.kv_head == p.kv_head_of(seg.segment.output));
                    REQUIRE(seg.contributors == plan::contributor_count(live, seg.segment.output));
                    const bool reduces = seg.segment.host && strategy == Strategy::stream_k && seg.contributors > 1;
                    REQUIRE(seg.role == (seg.contributors == 1 ? cuda::SegmentRole::store : reduces ? cuda::SegmentRole::reduce : cuda::SegmentRole::partial));
                    REQUIRE(seg.stream_begin_ns == t);
                    REQUIRE(seg.stream_end_ns == t + 1000);
                    REQUIRE(seg.wait_begin_ns == (reduces ? t + 1010 : -1));
                    REQUIRE(seg.wait_end_ns == (reduces ? t + 1040 : -1));
                    REQUIRE(seg.finish_end_ns == t + 1050);
                    t += 1050;
                    w.advance();
                }
                REQUIRE_FALSE(w.valid());
                REQUIRE(c.end_ns == t + 5);
            }
            REQUIRE(r.per_cta == std::max<std::int64_t>(most, 1));  // what a buffer must hold per CTA
        }
    }
}

TEST_CASE("a trace whose records disagree with the plan is refused") {
    Problem p;
    p.batch = 2, p.q_heads = p.kv_heads = 4, p.head_dim = 64, p.tile = 64, p.ctx = {1000, 3000};
    DeviceSpec d;
    d.sms = 10, d.ctas_per_sm = 1;
    const Schedule s = make_schedule(p, d, {});
    const PlanView live = s.view();
    Records r = made_up_records(s, live);
    REQUIRE_NOTHROW(cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta));
    SECTION("a CTA that walked another number of segments") {
        r.ctas[3].segments += 1;
        CHECK_THROWS_WITH(cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta), Catch::Contains("CTA 3") && Catch::Contains("walked"));
    }
    SECTION("a CTA whose plan was staged before its wait for it ended") {
        r.ctas[1].plan_ready_ns = r.ctas[1].plan_wait_ns - 1;
        CHECK_THROWS_WITH(cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta), Catch::Contains("CTA 1") && Catch::Contains("plan"));
    }
    SECTION("a segment whose streaming ends before it begins") {
        r.segments[static_cast<std::size_t>(2 * r.per_cta)].stream_end_ns = origin;
        CHECK_THROWS_WITH(cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta), Catch::Contains("CTA 2") && Catch::Contains("out of order"));
    }
    SECTION("records for fewer CTAs than the grid") {
        r.ctas.pop_back();
        CHECK_THROWS_AS(cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta), std::runtime_error);
    }
}

TEST_CASE("a host-lengths step's trace names its shared merges from the step's table, and refuses a table of other segments") {
    // 16 CTAs on 2 outputs of 32 LeanTiles: 8 CTAs each, each CTA one segment, so both merges are shared.
    Problem p;
    p.batch = 1, p.q_heads = 32, p.kv_heads = 2, p.head_dim = 128, p.tile = 128, p.ctx = {4096};
    DeviceSpec d;
    d.sms = 132, d.ctas_per_sm = 1;
    const Schedule s = make_schedule(p, d, PlanOptions{.strategy = Strategy::stream_k, .grid = 16});
    const PlanView live = s.view();
    const Records r = made_up_records(s, live);
    static cuda::StepTable step;
    KvCacheView kv;
    kv.capacity = 4096;
    const std::int32_t lengths[] = {4096};
    REQUIRE(cuda::make_step_table(s, kv, lengths, step));
    const cuda::KernelTrace with_table = cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta, &step);
    const cuda::KernelTrace without = cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta);
    for (std::int64_t g = 0; g < 16; ++g) {
        REQUIRE(with_table.ctas[g].segments.size() == 1);
        CHECK(with_table.ctas[g].segments[0].role == cuda::SegmentRole::shared);
        CHECK(cuda::segment_role_name(with_table.ctas[g].segments[0].role) == "shared");
        CHECK(without.ctas[g].segments[0].role == (g % 8 == 0 ? cuda::SegmentRole::reduce : cuda::SegmentRole::partial));
    }
    step.segments[step.cta_first[5]].output = 1;  // CTA 5 holds output 0
    CHECK_THROWS_WITH(cuda::assemble_trace(s, live, r.ctas, r.segments, r.per_cta, &step), Catch::Contains("CTA 5") && Catch::Contains("table"));
}

// A plan made for the cache's capacities, walked with the per-request arrays of the live lengths
// (core/live_plan.hpp): what the CPU executor derives on the host and the CUDA prologue on the device.
// The grid stays the plan's, so CTAs beyond the live work must walk nothing, and every live LeanTile must
// still be done exactly once, by contributors that are consecutive and led by the output's host.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "core/live_plan.hpp"
#include "core/tensor_layout.hpp"
#include "core/walker.hpp"
#include "decode_shape.hpp"
#include "random_problems.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

constexpr Strategy all_strategies[] = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};

struct LiveArrays {
    std::vector<std::int64_t> tiles, offset;
    PlanView view;
};

LiveArrays live_arrays(const Schedule& s, const KvCacheView& kv, const std::vector<std::int32_t>& lengths) {
    LiveArrays a;
    a.tiles.resize(static_cast<std::size_t>(s.problem.batch));
    a.offset.resize(a.tiles.size() + 1);
    a.view = live_view(s, kv, lengths.data(), a.tiles.data(), a.offset.data());
    return a;
}

}  // namespace

TEST_CASE("the live view of the lengths a plan was made for is the plan's own view") {
    auto rng = seeded_rng(21);
    for (int i = 0; i < 500; ++i) {
        const Problem p = random_problem(rng, 100000);
        const DeviceSpec d = random_device(rng);
        const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
        for (Strategy strategy : all_strategies) {
            const Schedule s = make_schedule(p, d, PlanOptions{.strategy = strategy});
            CAPTURE(i, describe(p, d), strategy_name(strategy));
            const LiveArrays live = live_arrays(s, t.views.kv, t.seqlens);
            REQUIRE(live.tiles == s.request_tiles);
            REQUIRE(live.offset == s.request_offset);
            REQUIRE(live.view.total_tiles == s.total_tiles);
            REQUIRE(live.view.chunk == s.chunk);
            REQUIRE(live.view.grid == s.grid);
            REQUIRE(live.view.snap == s.snap);
        }
    }
}

TEST_CASE("shorter live lengths give the arrays of a plan made for them, with the capacity plan's grid and splits") {
    auto rng = seeded_rng(22);
    for (int i = 0; i < 500; ++i) {
        const Problem p = random_problem(rng, 100000);
        const DeviceSpec d = random_device(rng);
        for (CacheLayout layout : {CacheLayout::padded, CacheLayout::paged, CacheLayout::ragged}) {
            const TensorLayout t = make_tensor_layout(p, DType::fp16, layout, 16);
            KvCacheView kv = t.views.kv;
            kv.cu_seqlens = t.cu_seqlens.empty() ? nullptr : t.cu_seqlens.data();
            const std::vector<std::int32_t> lengths = random_live_lengths(rng, p);
            Problem shorter = p;
            shorter.ctx.assign(lengths.begin(), lengths.end());
            for (Strategy strategy : all_strategies) {
                const Schedule s = make_schedule(p, d, PlanOptions{.strategy = strategy});
                const Schedule fresh = make_schedule(shorter, d, {strategy, strategy == Strategy::fixed_split ? s.splits : 0, 0});
                CAPTURE(i, describe(p, d), strategy_name(strategy), cache_layout_name(layout));
                const LiveArrays live = live_arrays(s, kv, lengths);
                REQUIRE(live.tiles == fresh.request_tiles);
                REQUIRE(live.offset == fresh.request_offset);
                REQUIRE(live.view.total_tiles == fresh.total_tiles);
                REQUIRE(live.view.grid == s.grid);
                if (strategy == Strategy::fixed_split) REQUIRE(live.view.chunk == fresh.chunk);
            }
        }
    }
}

TEST_CASE("walked with live lengths, the plan's grid does every live LeanTile once and spare CTAs walk nothing") {
    auto rng = seeded_rng(23);
    std::int64_t grids_beyond_work = 0;
    for (int i = 0; i < 1500; ++i) {
        const Problem p = random_problem(rng, 20000);
        const DeviceSpec d = random_device(rng);
        const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
        std::vector<std::int32_t> lengths = random_live_lengths(rng, p);
        if (i % 4 == 0) std::fill(lengths.begin(), lengths.end(), static_cast<std::int32_t>(p.q_len));  // the shortest step
        for (Strategy strategy : all_strategies) {
            const Schedule s = make_schedule(p, d, PlanOptions{.strategy = strategy});
            const LiveArrays live = live_arrays(s, t.views.kv, lengths);
            const PlanView& v = live.view;
            CAPTURE(i, describe(p, d), strategy_name(strategy));
            grids_beyond_work += s.grid > v.total_tiles ? 1 : 0;
            std::vector<int> visits(static_cast<std::size_t>(v.total_tiles), 0);
            std::vector<std::vector<std::int64_t>> holders(static_cast<std::size_t>(plan::outputs(v)));
            for (std::int64_t g = 0; g < v.grid; ++g) {
                for (CtaWalker w(v, g); w.valid(); w.advance()) {
                    const Segment& seg = w.current();
                    REQUIRE(seg.tiles() > 0);
                    for (std::int64_t x = seg.begin; x < seg.end; ++x) ++visits[plan::output_offset(v, seg.output) + x];
                    holders[seg.output].push_back(g);
                    REQUIRE(seg.host == (g == plan::host_cta(v, seg.output)));
                }
            }
            REQUIRE(std::all_of(visits.begin(), visits.end(), [](int c) { return c == 1; }));
            for (std::int64_t o = 0; o < plan::outputs(v); ++o) {
                const auto& h = holders[o];
                REQUIRE(static_cast<std::int64_t>(h.size()) == plan::contributor_count(v, o));
                for (std::size_t k = 0; k < h.size(); ++k) REQUIRE(h[k] == plan::contributor(v, o, static_cast<std::int64_t>(k)));
            }
        }
    }
    CHECK(grids_beyond_work > 100);  // the case the GPU meets at every short step: more CTAs than LeanTiles
}

namespace {

// One H100 (the DeviceSpec defaults), the decode kernel's one CTA per SM; B=16, 32/8 heads, d=128.
DeviceSpec h100_one_cta() {
    DeviceSpec d;
    d.ctas_per_sm = 1;
    return d;
}

Problem llama3_8b_batch16(std::int64_t capacity) {
    Problem p;
    p.batch = 16, p.q_heads = 32, p.kv_heads = 8, p.head_dim = 128, p.q_len = 1;
    p.ctx.assign(16, capacity);
    return p;
}

}  // namespace

TEST_CASE("a step far from the plan's lengths drops a snap that would unbalance it: one long request among short ones") {
    const Problem p = llama3_8b_batch16(16384);
    const Schedule s = make_schedule(p, h100_one_cta(), {});
    REQUIRE(s.snap > 0);  // 128 equal outputs, grid 128: whole outputs, no merge
    REQUIRE(s.capacity_max_load > 0);
    const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
    std::vector<std::int32_t> lengths(16, 3277);
    lengths[0] = 16384;
    const LiveArrays live = live_arrays(s, t.views.kv, lengths);
    // With the plan's snap, the long request's 8 outputs (128 LeanTiles each) would each go to one CTA, 4x the
    // ideal share; the paper's plan splits them instead.
    PlanView snapped = live.view;
    snapped.snap = s.snap;
    CHECK(plan::stream_k_max_load(snapped) >= 3 * plan::stream_k_ideal_max_load(live.view));
    CHECK(live.view.snap == 0);
    CHECK(plan::stream_k_max_load(live.view) == plan::stream_k_ideal_max_load(live.view));
}

TEST_CASE("a step whose requests all grew alike keeps the snap: whole outputs stay whole") {
    const Problem p = llama3_8b_batch16(16384);
    const Schedule s = make_schedule(p, h100_one_cta(), {});
    const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
    for (std::int32_t n : {8192, 4000, 16000}) {
        CAPTURE(n);
        const LiveArrays live = live_arrays(s, t.views.kv, std::vector<std::int32_t>(16, n));
        CHECK(live.view.snap == s.snap);
        std::int64_t split = 0;
        for (std::int64_t o = 0; o < plan::outputs(live.view); ++o) split += plan::contributor_count(live.view, o) > 1 ? 1 : 0;
        CHECK(split == 0);
    }
}

TEST_CASE("a grid beyond the resident CTAs keeps its snap whatever the lengths: only whole outputs are safe there") {
    const Problem p = llama3_8b_batch16(16384);
    const DeviceSpec d = h100_one_cta();
    const Schedule s = make_schedule(p, d, PlanOptions{.grid = 2 * d.resident_ctas(), .snap = 1 << 20});
    REQUIRE(s.whole_outputs());
    CHECK(s.capacity_max_load == 0);
    const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
    std::vector<std::int32_t> lengths(16, 100);
    lengths[0] = 16384;
    CHECK(live_arrays(s, t.views.kv, lengths).view.snap == s.snap);
}

TEST_CASE("a live step's snap is the plan's when plan::keeps_snap accepts its balance, else 0 (the paper's plan)") {
    auto rng = seeded_rng(24);
    std::int64_t dropped = 0, kept = 0;
    for (int i = 0; i < 1500; ++i) {
        const Problem p = random_problem(rng, 20000);
        const DeviceSpec d = random_device(rng);
        const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
        const Schedule s = make_schedule(p, d, {});
        if (s.snap == 0) continue;
        const LiveArrays live = live_arrays(s, t.views.kv, random_live_lengths(rng, p));
        CAPTURE(i, describe(p, d));
        PlanView snapped = live.view;
        snapped.snap = s.snap;
        const bool keeps = s.capacity_max_load == 0 || live.view.total_tiles == s.total_tiles ||
                           plan::keeps_snap(live.view, plan::stream_k_max_load(snapped));
        REQUIRE(live.view.snap == (keeps ? s.snap : 0));
        REQUIRE((s.capacity_max_load == 0) == (s.grid > d.resident_ctas()));
        (keeps ? kept : dropped) += 1;
    }
    CHECK(kept > 50);
    CHECK(dropped > 10);
}

TEST_CASE("tiles_for and fixed_split_chunk at their edges") {
    CHECK(plan::tiles_for(0, 128) == 0);
    CHECK(plan::tiles_for(1, 128) == 1);
    CHECK(plan::tiles_for(128, 128) == 1);
    CHECK(plan::tiles_for(129, 128) == 2);
    CHECK(plan::fixed_split_chunk(0, 4) == 1);  // an all-empty step still walks
    CHECK(plan::fixed_split_chunk(9, 4) == 3);
    CHECK(plan::fixed_split_chunk(8, 4) == 2);
}

TEST_CASE("live_schedule: the step at live lengths as a schedule, its view the live view") {
    auto rng = seeded_rng(23);
    for (int i = 0; i < 300; ++i) {
        const Problem p = random_problem(rng, 100000);
        const DeviceSpec d = random_device(rng);
        const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::padded);
        std::vector<std::int32_t> lengths(t.seqlens.size());
        std::vector<std::int64_t> live(lengths.size());
        for (std::size_t b = 0; b < lengths.size(); ++b) {
            live[b] = std::uniform_int_distribution<std::int64_t>(p.q_len, p.ctx[b])(rng);
            lengths[b] = static_cast<std::int32_t>(live[b]);
        }
        for (Strategy strategy : all_strategies) {
            const Schedule s = make_schedule(p, d, PlanOptions{.strategy = strategy});
            CAPTURE(i, describe(p, d), strategy_name(strategy));
            const LiveArrays expected = live_arrays(s, t.views.kv, lengths);
            const Schedule step = live_schedule(s, live);
            const PlanView v = step.view();
            REQUIRE(step.problem.ctx == live);
            REQUIRE(step.request_tiles == expected.tiles);
            REQUIRE(step.request_offset == expected.offset);
            REQUIRE(v.total_tiles == expected.view.total_tiles);
            REQUIRE(v.chunk == expected.view.chunk);
            REQUIRE(v.snap == expected.view.snap);
            REQUIRE(v.strategy == expected.view.strategy);
            REQUIRE(v.grid == s.grid);
            REQUIRE(v.splits == s.splits);
            REQUIRE(step.launches == s.launches);
        }
    }
    const Schedule s = make_schedule(decode_shape(2, 8, 2, 128, 1000), DeviceSpec{}, PlanOptions{});
    CHECK_THROWS(live_schedule(s, {}));          // one length per request
    CHECK_THROWS(live_schedule(s, {500, 1001}));  // none beyond its capacity
}

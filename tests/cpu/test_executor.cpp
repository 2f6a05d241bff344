// The CPU executor runs any plan: exact against float64, never deadlocks, bitwise deterministic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>
#include <thread>

#include "../core/random_problems.hpp"
#include "core/input_error.hpp"
#include "core/live_plan.hpp"
#include "core/tensor_checks.hpp"
#include "cpu_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {
// Every kind of plan the executor must run: stream-k under the paper's rule, the aligned rule's own choice and
// the aligned rule with a random snap (empty CTAs, whole outputs, moved hosts), and the two baselines.
std::vector<Schedule> every_plan(const Problem& p, const DeviceSpec& d, std::mt19937_64& rng) {
    PlanOptions paper, aligned, snapped, fixed, none;
    paper.stream_k_rule = StreamKRule::paper;
    snapped.snap = log_uniform(rng, 1, 256);
    fixed.strategy = Strategy::fixed_split;
    none.strategy = Strategy::no_split;
    std::vector<Schedule> plans;
    for (const PlanOptions& o : {paper, aligned, snapped, fixed, none}) plans.push_back(make_schedule(p, d, o));
    return plans;
}
}  // namespace

TEST_CASE("every strategy (stream-k under both rules) matches the float64 reference on random ragged GQA problems, in every dtype and cache layout") {
    auto rng = seeded_rng(31);
    for (int i = 0; i < 40; ++i) {
        Problem p = random_problem(rng, 3000);
        p.head_dim = 16 * uniform(rng, 1, 8);
        p.kv_heads = std::min<std::int64_t>(p.kv_heads, 4);
        p.q_heads = p.kv_heads * uniform(rng, 1, 4);
        p.batch = std::min<std::int64_t>(p.batch, 4);
        p.ctx.resize(static_cast<std::size_t>(p.batch));
        const DeviceSpec d = test_device(uniform(rng, 1, 40), uniform(rng, 1, 3));
        const auto dtype = static_cast<DType>(i % 3);
        const auto layout = static_cast<CacheLayout>(i % 4);  // padded, token-major, paged, ragged
        const std::int64_t block_size = uniform(rng, 1, 64);
        cpu::HostTensors t(p, dtype, layout, block_size);
        t.fill_random(static_cast<std::uint64_t>(i) + Catch::rngSeed());
        const ReferenceOutput ref = reference_of(t);
        for (const Schedule& s : every_plan(p, d, rng)) {
            CAPTURE(i, describe(p, d), strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), s.grid, s.snap, dtype_name(dtype), cache_layout_name(layout), block_size);
            const Errors e = run_and_check(s, t, ref, 3);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= tolerance(dtype));
            REQUIRE(e.lse_max_abs <= 1e-4);
        }
    }
}

TEST_CASE("a whole-output plan made for a cache's capacity runs a ragged step as the paper's plan, and matches float64") {
    // The GPU suite's case at a CPU test's size: 16 requests, 8 KV heads, a cache of 128 LeanTiles each, so the
    // aligned rule keeps outputs whole on 132 SMs; then one request at the capacity and fifteen at a fifth.
    Problem p;
    p.batch = 16, p.q_heads = 32, p.kv_heads = 8, p.head_dim = 16, p.q_len = 1, p.tile = 16;
    p.ctx.assign(16, 2048);
    const Schedule s = plan_for(p, test_device(132, 1), Strategy::stream_k);
    REQUIRE(s.whole_outputs());
    cpu::HostTensors t(p, DType::fp16, CacheLayout::paged, 16);
    t.fill_random(Catch::rngSeed() + 7);
    std::fill(t.seqlens().begin(), t.seqlens().end(), 410);
    t.seqlens()[0] = 2048;
    std::vector<std::int64_t> tiles(16), offset(17);
    const PlanView live = live_view(s, t.view().kv, t.view().seqlens, tiles.data(), offset.data());
    CHECK(live.snap == 0);  // with the plan's snap, one CTA per long output: 4x the ideal share
    std::int64_t split = 0;
    for (std::int64_t o = 0; o < plan::outputs(live); ++o) split += plan::contributor_count(live, o) > 1 ? 1 : 0;
    CHECK(split > 8);  // the paper's plan splits outputs, so the hosts merge partials
    const Errors e = run_and_check(s, t, reference_of(t), 3);
    CHECK(e.non_finite == 0);
    CHECK(e.rel_l2 <= tolerance(DType::fp16));
}

TEST_CASE("a request that holds no token (a padded batch's empty slot) gets out 0 and lse -inf under every plan, the others their attention, and a length of 1 to q_len - 1 is refused") {
    auto rng = seeded_rng(43);
    Problem p;
    p.batch = 5, p.q_heads = 8, p.kv_heads = 2, p.head_dim = 32, p.q_len = 3, p.tile = 16;
    p.ctx = {300, 500, 90, 300, 200};
    for (const CacheLayout layout : {CacheLayout::padded, CacheLayout::paged, CacheLayout::ragged}) {
        cpu::HostTensors t(p, DType::fp16, layout, 16);
        t.fill_random(Catch::rngSeed() + 11);
        t.seqlens() = {0, 500, 0, 3, 0};  // the first, the middle and the last slot empty; one request of q_len tokens
        const ReferenceOutput ref = reference_of(t);
        for (const Schedule& s : every_plan(p, test_device(6, 1), rng)) {
            CAPTURE(cache_layout_name(layout), strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), s.grid, s.snap);
            const Errors e = run_and_check(s, t, ref, 3);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= tolerance(DType::fp16));
            REQUIRE(e.lse_max_abs <= 1e-4);  // an empty slot's lse is −∞ exactly (compare_to_reference)
            const DecodeTensors v = t.view();
            for (const std::int64_t b : {0, 2, 4}) {
                for (std::int64_t token = 0; token < p.q_len; ++token) {
                    for (std::int64_t head = 0; head < p.q_heads; ++head) {
                        const auto* row = static_cast<const std::uint16_t*>(v.o.data) + tensors::row_offset(v.o, b, token, head);
                        REQUIRE(std::all_of(row, row + p.head_dim, [](std::uint16_t x) { return x == 0; }));
                        REQUIRE(v.lse.data[tensors::lse_offset(v.lse, b, token, head)] == -std::numeric_limits<float>::infinity());
                    }
                }
            }
        }
        // 1 or 2 tokens cannot hold a request's 3 new ones: refused before anything is written.
        const Schedule plan = plan_for(p, test_device(6, 1), Strategy::stream_k);
        std::vector<std::byte> workspace(cpu::workspace_bytes(plan));
        for (const std::int32_t short_length : {1, 2, -1}) {
            t.seqlens()[3] = short_length;
            CHECK_THROWS_WITH(cpu::run(plan, t.view(), workspace.data(), workspace.size(), 1),
                              Catch::Contains("cache_seqlens") && Catch::Contains("request 3 has " + std::to_string(short_length) + " tokens"));
        }
    }
}

TEST_CASE("the executor never deadlocks: 1, 2, 3, 7 and 64 threads on grids of 1 to 300 CTAs") {
    Problem p;
    p.batch = 3;
    p.q_heads = 8;
    p.kv_heads = 4;
    p.head_dim = 32;
    p.tile = 16;
    p.ctx = {700, 90, 1500};  // 4 · (44 + 6 + 94) = 576 LeanTiles: every grid up to 300 splits outputs
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    t.fill_random(7);
    const ReferenceOutput ref = reference_of(t);
    for (int threads : {1, 2, 3, 7, 64}) {
        for (std::int64_t grid : {1, 2, 5, 17, 64, 150, 300}) {
            for (std::int64_t per_sm : {1, 2}) {
                // grid CTAs resident at once: SMs × CTAs-per-SM = grid (rounded up), so the plan is valid. The
                // paper's rule with 1 CTA per SM, the aligned rule (snap 3: some starts move, some CTAs empty) with 2.
                const DeviceSpec d = test_device((grid + per_sm - 1) / per_sm, per_sm);
                PlanOptions o;
                o.grid = grid;
                if (per_sm == 1) o.stream_k_rule = StreamKRule::paper;
                else o.snap = 3;
                const Schedule s = make_schedule(p, d, o);
                CAPTURE(threads, grid, per_sm, stream_k_rule_name(s.stream_k_rule));
                const Errors e = run_and_check(s, t, ref, threads);
                REQUIRE(e.non_finite == 0);
                REQUIRE(e.rel_l2 <= 1e-5);
            }
        }
        // fixed-split's reduce pass waits behind a barrier, with 12 · splits CTAs (up to 300), and no-split.
        for (std::int64_t splits : {1, 3, 25}) {
            const Schedule s = plan_for(p, test_device(5, 1), Strategy::fixed_split, splits);
            CAPTURE(threads, splits, s.grid);
            const Errors e = run_and_check(s, t, ref, threads);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= 1e-5);
        }
        CAPTURE(threads);
        REQUIRE(run_and_check(plan_for(p, test_device(5, 1), Strategy::no_split), t, ref, threads).rel_l2 <= 1e-5);
    }
}

TEST_CASE("the output is bitwise identical across runs and thread counts for a given plan") {
    Problem p;
    p.batch = 2;
    p.q_heads = 16;
    p.kv_heads = 4;
    p.head_dim = 64;
    p.tile = 64;
    p.ctx = {5000, 777};
    cpu::HostTensors t(p, DType::fp32, CacheLayout::ragged);
    t.fill_random(11);
    std::mt19937_64 rng(5);
    for (const Schedule& s : every_plan(p, test_device(13, 2), rng)) {
        t.poison_outputs();
        execute(s, t, 1);
        const std::vector<float> first = t.o_float();
        const std::vector<float> first_lse = t.lse();
        for (int threads : {1, 2, 5, 16}) {
            t.poison_outputs();
            execute(s, t, threads);
            CAPTURE(strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), threads);
            const std::vector<float> again = t.o_float();
            REQUIRE(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)) == 0);
            REQUIRE(std::memcmp(first_lse.data(), t.lse().data(), first_lse.size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("every cache layout gives the padded cache's bits: the layout changes addresses, not arithmetic") {
    // Paged runs end at block boundaries, yet each LeanTile's sums still add their tokens in order: on the AVX2 products
    // (head dims that are multiples of 8) and on the portable ones (100, 4; every head dim on a CPU without AVX2).
    Problem p;
    p.batch = 3;
    p.q_heads = 8;
    p.kv_heads = 2;
    p.tile = 32;
    p.ctx = {300, 77, 1000};
    auto rng = seeded_rng(5);
    for (const std::int64_t d : {64, 100, 4})
    for (p.head_dim = d; const Schedule& s : every_plan(p, test_device(9, 1), rng)) {
        std::vector<float> padded;
        for (auto [layout, block_size] : {std::pair{CacheLayout::padded, 16}, {CacheLayout::token_major, 16}, {CacheLayout::paged, 1},
                                          {CacheLayout::paged, 7}, {CacheLayout::paged, 256}, {CacheLayout::ragged, 16}}) {
            cpu::HostTensors t(p, DType::bf16, layout, block_size);
            t.fill_random(19);  // the generator fills storage, not tokens: copy padded's tokens into this layout
            cpu::HostTensors reference(p, DType::bf16, CacheLayout::padded);
            reference.fill_random(19);
            for (std::int64_t b = 0; b < p.batch; ++b) {
                for (std::int64_t h = 0; h < p.kv_heads; ++h) {
                    for (std::int64_t j = 0; j < p.ctx[b]; ++j) {
                        std::memcpy(t.raw_k().data() + t.kv_offset(b, h, j) * 2, reference.raw_k().data() + reference.kv_offset(b, h, j) * 2, d * 2);
                        std::memcpy(t.raw_v().data() + t.kv_offset(b, h, j) * 2, reference.raw_v().data() + reference.kv_offset(b, h, j) * 2, d * 2);
                    }
                }
            }
            t.raw_q() = reference.raw_q();
            t.poison_outputs();
            execute(s, t, 3);
            CAPTURE(d, strategy_name(s.strategy), stream_k_rule_name(s.stream_k_rule), cache_layout_name(layout), block_size);
            if (layout == CacheLayout::padded) padded = t.o_float();
            const std::vector<float> o = t.o_float();
            REQUIRE(std::memcmp(o.data(), padded.data(), o.size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("a run is refused for a plan made for other tensors, no workspace or a short one, and a bad softmax_scale") {
    Problem p;
    p.q_heads = p.kv_heads = 2;
    p.head_dim = 16;
    p.tile = 16;
    p.ctx = {100};
    cpu::HostTensors t(p, DType::fp32, CacheLayout::padded);
    Problem other = p;
    other.ctx = {200};
    CHECK_THROWS_AS(execute(plan_for(other, test_device(4, 1), Strategy::stream_k), t, 2), InputError);
    // No workspace at all, or a short one: said as such.
    const Schedule plan = plan_for(p, test_device(4, 1), Strategy::stream_k);
    std::vector<std::byte> workspace(cpu::workspace_bytes(plan));
    CHECK_THROWS_WITH(cpu::run(plan, t.view(), nullptr, workspace.size(), 1), Catch::Contains("workspace") && Catch::Contains("is NULL"));
    CHECK_THROWS_WITH(cpu::run(plan, t.view(), workspace.data(), workspace.size() - 1, 1),
                      Catch::Contains("holds " + std::to_string(workspace.size() - 1) + " bytes; this plan needs " + std::to_string(workspace.size())));
    // A softmax_scale that is negative or not finite (0: 1/sqrt(head_dim)).
    t.fill_random(3);
    for (const float scale : {-0.5f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
        DecodeTensors view = t.view();
        view.softmax_scale = scale;
        CHECK_THROWS_WITH(cpu::run(plan, view, workspace.data(), workspace.size(), 1), Catch::Contains("softmax_scale"));
    }
    // A negative stride between requests: refused where it is read, ignored where it is not (a ragged cache's requests
    // lie where cu_seqlens says).
    DecodeTensors strided = t.view();
    strided.kv.stride_request = -7;
    CHECK_THROWS_WITH(cpu::run(plan, strided, workspace.data(), workspace.size(), 1), Catch::Contains("strides must be non-negative"));
    cpu::HostTensors ragged(p, DType::fp32, CacheLayout::ragged);
    ragged.fill_random(5);
    DecodeTensors unused = ragged.view();
    unused.kv.stride_request = -7;
    CHECK_NOTHROW(cpu::run(plan, unused, workspace.data(), workspace.size(), 1));
    // Memory the run writes twice: softmax_lse inside out, or a workspace over out.
    DecodeTensors shared = t.view();
    shared.lse.data = static_cast<float*>(shared.o.data) + 8;
    CHECK_THROWS_WITH(cpu::run(plan, shared, workspace.data(), workspace.size(), 1), Catch::Contains("softmax_lse (overlaps out"));
    std::vector<std::byte> both(workspace.size() + 4096);
    DecodeTensors inside = t.view();
    inside.o.data = both.data() + workspace.size() / 2 / 16 * 16;  // out's 2 x 16 floats inside the workspace
    CHECK_THROWS_WITH(cpu::run(plan, inside, both.data(), workspace.size(), 1), Catch::Contains("workspace (overlaps out"));
}

TEST_CASE("a run refuses out or softmax_lse whose own rows overlap, either lying on q, K, V or the index arrays, a workspace on any of them, and runs other layouts and out = q in place") {
    Problem p;
    p.batch = 2;
    p.q_len = 2;
    p.q_heads = 4;
    p.kv_heads = 2;
    p.head_dim = 16;
    p.tile = 16;
    p.ctx = {40, 70};
    for (const CacheLayout layout : {CacheLayout::padded, CacheLayout::paged, CacheLayout::ragged}) {
        CAPTURE(std::string(cache_layout_name(layout)));
        cpu::HostTensors t(p, DType::fp32, layout);
        t.fill_random(11);
        const Schedule plan = plan_for(p, test_device(4, 1), Strategy::stream_k);
        std::vector<std::byte> workspace(cpu::workspace_bytes(plan));
        const auto refused = [&](const DecodeTensors& view) {
            try {
                cpu::run(plan, view, workspace.data(), workspace.size(), 1);
            } catch (const InputError& e) {
                return std::string(e.what());
            }
            return std::string("ran");
        };
        // out's rows on each other: a stride of 0, one shorter than a row, the token and head strides swapped with a
        // token's stride left at one row (token 1 of a head is the next head's row), strides counted in bytes / 4, and
        // strides no two of which meet while all three do (request 1's token 1 of head 0 is request 0's head 1: 16 + 32 = 48).
        const DecodeTensors base = t.view();
        for (const auto& [batch, token, head] : std::initializer_list<std::array<std::int64_t, 3>>{
                 {128, 64, 0}, {128, 64, 8}, {128, 16, 16}, {32, 16, 4}, {16, 32, 48}}) {
            CAPTURE(batch, token, head);
            DecodeTensors view = base;
            view.o.stride_batch = batch, view.o.stride_token = token, view.o.stride_head = head;
            CHECK_THAT(refused(view), Catch::Contains("out (rows overlap"));
        }
        DecodeTensors lse = base;
        lse.lse.stride_token = 0;
        CHECK_THAT(refused(lse), Catch::Contains("softmax_lse (values overlap"));
        // out on what the run reads: q shifted by a row, or q with other strides, inside K, inside V.
        DecodeTensors shifted = base;
        shifted.o = shifted.q;
        shifted.o.data = static_cast<float*>(shifted.q.data) + 16;
        CHECK_THAT(refused(shifted), Catch::Contains("out (overlaps q"));
        DecodeTensors restrided = base;
        restrided.o = restrided.q;
        restrided.o.stride_head = 32, restrided.o.stride_token = 16;
        CHECK_THAT(refused(restrided), Catch::Contains("out (overlaps q"));
        DecodeTensors in_k = base;
        in_k.o.data = const_cast<void*>(in_k.kv.k);
        CHECK_THAT(refused(in_k), Catch::Contains("out (overlaps k_cache"));
        DecodeTensors lse_in_v = base;
        lse_in_v.lse.data = static_cast<float*>(const_cast<void*>(lse_in_v.kv.v)) + 3;
        CHECK_THAT(refused(lse_in_v), Catch::Contains("softmax_lse (overlaps v_cache"));
        // ... or on the lengths, block ids or cu_seqlens it reads (the run would write over them before it is done). Each
        // pair shares a buffer of the test's own, so that nothing else can lie in the range named.
        std::vector<std::int32_t> arena(1 << 14);
        DecodeTensors on_lengths = base;
        std::copy(base.seqlens, base.seqlens + p.batch, arena.begin());
        on_lengths.seqlens = arena.data();
        on_lengths.o.data = arena.data();
        CHECK_THAT(refused(on_lengths), Catch::Contains("out (overlaps cache_seqlens"));
        if (layout != CacheLayout::padded) {
            DecodeTensors on_index = base;
            const bool paged = layout == CacheLayout::paged;
            const std::int64_t entries = paged ? p.batch * base.kv.block_table_stride : p.batch + 1;
            std::copy_n(paged ? base.kv.block_table : base.kv.cu_seqlens, entries, arena.begin());
            (paged ? on_index.kv.block_table : on_index.kv.cu_seqlens) = arena.data();
            on_index.lse.data = reinterpret_cast<float*>(arena.data());
            CHECK_THAT(refused(on_index), Catch::Contains(paged ? "softmax_lse (overlaps block_table" : "softmax_lse (overlaps cu_seqlens"));
            if (paged) {  // a capacity short of its last block still reaches it: ⌈capacity / block_size⌉ entries a row
                DecodeTensors short_capacity = on_index;
                short_capacity.kv.capacity -= 5;
                REQUIRE(short_capacity.kv.capacity % short_capacity.kv.block_size != 0);
                const std::int64_t last = (p.batch - 1) * base.kv.block_table_stride + (short_capacity.kv.capacity - 1) / base.kv.block_size;
                short_capacity.lse.data = reinterpret_cast<float*>(arena.data() + last);
                CHECK_THAT(refused(short_capacity), Catch::Contains("softmax_lse (overlaps block_table"));
            }
        }
        // A workspace on anything the run reads: it writes its tables and partials there while it reads them.
        std::vector<std::byte> shared(workspace.size() + 4096);
        const auto workspace_over = [&](DecodeTensors view) {
            try {
                cpu::run(plan, view, shared.data(), workspace.size(), 1);
            } catch (const InputError& e) {
                return std::string(e.what());
            }
            return std::string("ran");
        };
        DecodeTensors q_inside = base;
        q_inside.q.data = std::memcpy(shared.data() + 64, base.q.data, 16);  // q's first elements, then past the workspace's first bytes
        CHECK_THAT(workspace_over(q_inside), Catch::Contains("workspace (overlaps q"));
        DecodeTensors lengths_inside = base;
        lengths_inside.seqlens = static_cast<const std::int32_t*>(std::memcpy(shared.data() + 128, base.seqlens, 4 * p.batch));
        CHECK_THAT(workspace_over(lengths_inside), Catch::Contains("workspace (overlaps cache_seqlens"));
        // Staging a GPU step writes the workspace alone: out and softmax_lse are not compared then, the inputs still are.
        DecodeTensors out_inside = base;
        out_inside.o.data = shared.data() + 64;
        CHECK_NOTHROW(check_workspace_apart(p, out_inside, shared.data(), workspace.size(), true, Outputs::unused));
        CHECK_THROWS_WITH(check_workspace_apart(p, out_inside, shared.data(), workspace.size(), true), Catch::Contains("workspace (overlaps out"));
        CHECK_THROWS_WITH(check_workspace_apart(p, q_inside, shared.data(), workspace.size(), true, Outputs::unused), Catch::Contains("workspace (overlaps q"));
        // A layout of its own that keeps rows apart runs, and gives the very output of the usual one: heads outermost
        // within a request (strides batch 128, token 16, head 32).
        t.poison_outputs();
        REQUIRE(refused(base) == "ran");
        const std::vector<float> usual = t.o_float();
        std::vector<float> own(usual.size(), std::numeric_limits<float>::quiet_NaN());
        DecodeTensors head_major = base;
        head_major.o.data = own.data();
        head_major.o.stride_batch = 128, head_major.o.stride_token = 16, head_major.o.stride_head = 32;
        REQUIRE(refused(head_major) == "ran");
        for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t s = 0; s < 2; ++s)
                for (std::int64_t h = 0; h < 4; ++h)
                    for (std::int64_t d = 0; d < 16; ++d) CHECK(own[b * 128 + s * 16 + h * 32 + d] == usual[b * 128 + s * 64 + h * 16 + d]);
        // out = q itself (in place): every output tile reads its own query rows before its output is written, so the
        // bits are those of a separate out, for every strategy.
        for (const Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
            CAPTURE(strategy_name(strategy));
            const Schedule each = plan_for(p, test_device(4, 1), strategy);
            std::vector<std::byte> scratch(cpu::workspace_bytes(each));
            cpu::HostTensors separate(p, DType::fp32, layout);
            separate.fill_random(11);
            cpu::run(each, separate.view(), scratch.data(), scratch.size(), 2);
            DecodeTensors in_place = separate.view();
            in_place.o = in_place.q;
            cpu::run(each, in_place, scratch.data(), scratch.size(), 2);
            std::vector<float> q_after(usual.size());
            std::memcpy(q_after.data(), separate.raw_q().data(), q_after.size() * sizeof(float));
            CHECK(q_after == separate.o_float());
        }
    }
}

TEST_CASE("two runs at once on one workspace: the second is refused, the first computes the right output") {
    // Long enough (K and V of 256 MB on one thread each) that two runs started together overlap.
    Problem p;
    p.q_heads = p.kv_heads = 4;
    p.head_dim = 128;
    p.ctx = {131072};
    p.tile = 128;
    cpu::HostTensors t(p, DType::fp16, CacheLayout::padded);
    t.fill_random(7);
    t.poison_outputs();
    const Schedule plan = plan_for(p, test_device(8, 1), Strategy::stream_k);
    std::vector<std::byte> workspace(cpu::workspace_bytes(plan));
    std::atomic<int> ready{0};
    std::string refused[2];
    const auto run_one = [&](int i) {
        ++ready;
        while (ready.load() < 2) std::this_thread::yield();
        try {
            cpu::run(plan, t.view(), workspace.data(), workspace.size(), 1);
        } catch (const InputError& e) {
            refused[i] = e.what();
        }
    };
    std::thread first(run_one, 0), second(run_one, 1);
    first.join();
    second.join();
    CAPTURE(refused[0], refused[1]);
    REQUIRE((refused[0].empty() != refused[1].empty()));  // exactly one refused
    CHECK_THAT(refused[0] + refused[1], Catch::Contains("workspace") && Catch::Contains("in use by another run"));
    const ReferenceOutput ref = reference_of(t);
    CHECK(compare_to_reference(p, t.view(), ref).rel_l2 < 1e-3);
    // Each run leaves the workspace free, the refused one included: the next run takes it.
    t.poison_outputs();
    CHECK_NOTHROW(cpu::run(plan, t.view(), workspace.data(), workspace.size(), 2));
    CHECK(compare_to_reference(p, t.view(), ref).rel_l2 < 1e-3);
}

TEST_CASE("row blocks (a KV head's rows cut over several output tiles) match float64 under every strategy, and give one tile's bits under no-split") {
    auto rng = seeded_rng(47);
    for (int i = 0; i < 12; ++i) {
        Problem p = random_problem(rng, 1500);
        p.kv_heads = std::min<std::int64_t>(p.kv_heads, 2);
        p.q_heads = p.kv_heads * uniform(rng, 3, 24);
        p.batch = std::min<std::int64_t>(p.batch, 3);
        p.ctx.resize(static_cast<std::size_t>(p.batch));
        p.q_len = std::min<std::int64_t>(uniform(rng, 1, 4), *std::min_element(p.ctx.begin(), p.ctx.end()));
        p.tile_rows = uniform(rng, 1, p.rows() - 1);  // at least two blocks
        REQUIRE(p.row_blocks() >= 2);
        const DeviceSpec d = test_device(uniform(rng, 1, 40), uniform(rng, 1, 3));
        cpu::HostTensors t(p, DType::fp16, static_cast<CacheLayout>(i % 4), uniform(rng, 1, 64));
        t.fill_random(static_cast<std::uint64_t>(i) + 100);
        const ReferenceOutput ref = reference_of(t);
        for (const Schedule& s : every_plan(p, d, rng)) {
            CAPTURE(i, describe(p, d), p.tile_rows, strategy_name(s.strategy), s.grid);
            const Errors e = run_and_check(s, t, ref, 2);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= tolerance(DType::fp16));
        }
        PlanOptions whole;
        whole.strategy = Strategy::no_split;
        execute(make_schedule(p, d, whole), t, 2);
        const std::vector<float> blocks = t.o_float();
        Problem one = p;
        one.tile_rows = p.rows();
        t.poison_outputs();
        execute(make_schedule(one, d, whole), t, 2);
        CHECK(std::memcmp(blocks.data(), t.o_float().data(), blocks.size() * sizeof(float)) == 0);
    }
}

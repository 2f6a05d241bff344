// Kernel models (sim/kernel_model.hpp): the paper's kernel reproduces the simulator without one, the rules a
// kernel model computes by (padded rows, paths, compute), its checks, and what the simulator does with its
// merge order, its overlapped compute and its per-CTA spans (SimResult::ctas).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "apps/data_catalog.hpp"
#include "core/input_error.hpp"
#include "plan_kinds.hpp"
#include "random_problems.hpp"
#include "sim/cta_program.hpp"
#include "sim/kernel_model.hpp"
#include "sim/makespan.hpp"
#include "sim/simulation.hpp"
#include "sim_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;
using Catch::Detail::Approx;

namespace {

Problem one_output(std::int64_t q_heads, std::int64_t head_dim, std::int64_t ctx, std::int64_t q_len = 1) {
    Problem p;
    p.batch = 1;
    p.kv_heads = 1;
    p.q_heads = q_heads;
    p.head_dim = head_dim;
    p.q_len = q_len;
    p.tile = default_tile(head_dim);
    p.ctx = {ctx};
    return p;
}

sim::SimResult play(const Schedule& plan, const sim::KernelModel* kernel, bool timeline = false, std::int64_t bytes_per_element = 2) {
    sim::SimOptions o;
    o.kernel = kernel;
    o.record_timeline = timeline;
    o.bytes_per_element = bytes_per_element;
    return sim::simulate(plan, o);
}

Schedule plan_of(const Problem& p, const DeviceSpec& d, Strategy s, StreamKRule rule = StreamKRule::aligned) {
    PlanOptions o;
    o.strategy = s;
    o.stream_k_rule = rule;
    return make_schedule(p, d, o);
}

}  // namespace

TEST_CASE("the paper kernel of a device, passed as SimOptions::kernel, plays every plan exactly as the simulator without a kernel") {
    auto rng = seeded_rng(101);
    const DeviceSpec h100 = app::load_device("h100-sxm");
    for (int i = 0; i < 150; ++i) {
        const Problem p = random_problem(rng, 1 << 16);
        DeviceSpec d = i % 2 == 0 ? h100 : random_device(rng);
        d.sms = std::min<std::int64_t>(d.sms, 264);
        if (i % 3 == 0) d.timing.hbm_partitions = std::min<std::int64_t>(d.sms, 2);
        const sim::KernelModel paper = sim::paper_kernel(d);
        REQUIRE_NOTHROW(sim::check_kernel_model(paper));
        CHECK(paper.ctas_per_sm == d.ctas_per_sm);
        CHECK(sim::device_for_kernel(d, paper).ctas_per_sm == d.ctas_per_sm);
        for (const Kind& kind : all_kinds) {
            CAPTURE(describe(p, d), kind.name);
            const Schedule plan = plan_of(p, d, kind.strategy, kind.rule);
            const std::int64_t bytes = i % 4 == 1 ? 4 : 2;
            const sim::SimResult without = play(plan, nullptr, false, bytes);
            const sim::SimResult with = play(plan, &paper, false, bytes);
            CHECK(with.makespan_ns == without.makespan_ns);
            CHECK(with.busy_sm_ns == without.busy_sm_ns);
            CHECK(with.reduce_sm_ns == without.reduce_sm_ns);
            CHECK(with.waiting_sm_ns == without.waiting_sm_ns);
        }
    }
}

TEST_CASE("padded_rows: one row runs on CUDA cores except at d96, more rows pad to a power of two of at least 16") {
    const sim::KernelModel k;  // tensor_core_rows_min 16
    CHECK(sim::padded_rows(k, 1, 128) == 1);
    CHECK(sim::padded_rows(k, 1, 64) == 1);
    CHECK(sim::padded_rows(k, 1, 256) == 1);
    CHECK(sim::padded_rows(k, 1, 96) == 16);
    CHECK(sim::padded_rows(k, 2, 128) == 16);
    CHECK(sim::padded_rows(k, 5, 128) == 16);
    CHECK(sim::padded_rows(k, 16, 128) == 16);
    CHECK(sim::padded_rows(k, 17, 128) == 32);
    CHECK(sim::padded_rows(k, 71, 128) == 128);
    CHECK(sim::padded_rows(k, 128, 64) == 128);
    CHECK(sim::padded_rows(k, 129, 64) == 256);
    sim::KernelModel m64 = k;
    m64.tensor_core_rows_min = 64;
    CHECK(sim::padded_rows(m64, 5, 128) == 64);
    CHECK(sim::padded_rows(m64, 65, 128) == 128);
    sim::KernelModel exact = k;
    exact.tensor_core_rows_min = 1;  // a kernel that computes exactly its rows
    CHECK(sim::padded_rows(exact, 1, 96) == 1);
    CHECK(sim::padded_rows(exact, 71, 128) == 71);
}

TEST_CASE("kernel_path: the head dim, and the one-row CUDA-core paths where a tile holds one row of one new token, and costed_path the next larger where none") {
    const auto index = [](const char* name) {
        return static_cast<int>(std::find_if(std::begin(sim::kernel_path_names), std::end(sim::kernel_path_names),
                                             [&](const char* n) { return std::string(n) == name; }) -
                                std::begin(sim::kernel_path_names));
    };
    struct Case {
        std::int64_t q_heads, head_dim, q_len;
        const char* path;    // the kernel's own (nullptr: none)
        const char* costed;  // whose per-KiB cost it pays: its own, else the next larger head dim's, beyond 256 256's
    };
    for (const Case& c : {Case{1, 64, 1, "d64_1row", "d64_1row"}, Case{4, 64, 1, "d64", "d64"}, Case{1, 64, 2, "d64", "d64"}, Case{1, 96, 1, "d96", "d96"},
                          Case{8, 96, 1, "d96", "d96"}, Case{1, 128, 1, "d128_1row", "d128_1row"}, Case{8, 128, 1, "d128", "d128"},
                          Case{1, 256, 1, "d256_1row", "d256_1row"}, Case{2, 256, 1, "d256", "d256"}, Case{4, 32, 1, nullptr, "d64"},
                          Case{1, 80, 1, nullptr, "d96"}, Case{8, 100, 1, nullptr, "d128"}, Case{1, 100, 1, nullptr, "d128_1row"},
                          Case{8, 160, 1, nullptr, "d256"}, Case{8, 512, 1, nullptr, "d256"}}) {
        CAPTURE(c.q_heads, c.head_dim, c.q_len);
        const Problem p = one_output(c.q_heads, c.head_dim, 100, c.q_len);
        CHECK(sim::kernel_path(p) == (c.path == nullptr ? -1 : index(c.path)));
        CHECK(sim::costed_path(p) == index(c.costed));
    }
    // One-row tiles (tile_rows 1) run on CUDA cores only where each holds one new token; several new tokens need their
    // rows' causal ends, which the tensor-core kernels apply (Problem::kernel_tile_rows, the GPU's kernel choice too).
    Problem one_row_tiles = one_output(8, 128, 100, 1);
    one_row_tiles.tile_rows = 1;
    CHECK(one_row_tiles.kernel_tile_rows() == 1);
    CHECK(sim::kernel_path(one_row_tiles) == index("d128_1row"));
    one_row_tiles.q_len = 3;
    CHECK(one_row_tiles.kernel_tile_rows() == 2);
    CHECK(sim::kernel_path(one_row_tiles) == index("d128"));
}

TEST_CASE("under a GPU kernel's model a head dim without a path of its own pays the next larger one's per-KiB cost") {
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    const auto us = [&](std::int64_t head_dim, const sim::KernelModel& k) {
        PlanOptions o;
        o.strategy = Strategy::no_split;
        const Schedule plan = make_schedule(one_output(8, head_dim, 8192, 1), sim::device_for_kernel(device, k), o);
        return sim::simulated_makespan_ns(plan, k, 2) / 1e3;
    };
    for (const auto& [head_dim, padded] : {std::pair{100, 128}, std::pair{112, 128}, std::pair{160, 256}, std::pair{80, 96}}) {
        CAPTURE(head_dim);
        sim::KernelModel free_path = kernel;  // the same kernel without the path's cost: what such head dims were charged
        free_path.cta_ns_per_kb_by_path[sim::costed_path(one_output(8, head_dim, 8192, 1))] = 0.0;
        CHECK(us(head_dim, kernel) > us(head_dim, free_path));  // (overlapped with the loads, so by little where they dominate)
        CHECK(us(head_dim, kernel) <= us(padded, kernel));  // fewer bytes than the padded head dim, at its cost per byte
    }
}

TEST_CASE("compute_ns adds the scores, the multiply-adds and the path's per-KiB cost, with padded rows") {
    sim::KernelModel k;
    k.compute_ns_per_kscore = 3.0;
    k.compute_ns_per_mmac = 5.0;
    for (double& v : k.cta_ns_per_kb_by_path) v = 0.0;
    k.cta_ns_per_kb_by_path[sim::kernel_path(one_output(8, 128, 1))] = 7.0;  // d128
    const Problem gqa = one_output(8, 128, 1000);                             // 8 rows, padded to 16
    const double tokens = 1000, rows = 16, scores = rows * tokens;
    const double kb_fp16 = tokens * 128 * 2 * 2 / 1024.0;
    CHECK(sim::compute_ns(k, gqa, tokens, 2) == Approx(scores / 1024 * 3.0 + 2 * scores * 128 / 1e6 * 5.0 + kb_fp16 * 7.0).epsilon(1e-12));
    CHECK(sim::compute_ns(k, gqa, tokens, 4) == Approx(scores / 1024 * 3.0 + 2 * scores * 128 / 1e6 * 5.0 + 2 * kb_fp16 * 7.0).epsilon(1e-12));
    // One row at d128 is the d128_1row path: one row computed, and that path's cost (0 here), not d128's.
    const Problem single = one_output(1, 128, 1000);
    CHECK(sim::compute_ns(k, single, tokens, 2) == Approx(tokens / 1024 * 3.0 + 2 * tokens * 128 / 1e6 * 5.0).epsilon(1e-12));
    // A head dim with no path: only the compute.
    const Problem d80 = one_output(4, 80, 1000);
    CHECK(sim::compute_ns(k, d80, tokens, 2) == Approx(16 * tokens / 1024 * 3.0 + 2 * 16 * tokens * 80 / 1e6 * 5.0).epsilon(1e-12));
    CHECK(sim::compute_ns(k, gqa, 0.0, 2) == 0.0);
    // partial_bytes: rows x (d + 2) floats, unpadded.
    CHECK(sim::partial_bytes(gqa) == 8.0 * 130 * 4);
}

TEST_CASE("check_kernel_model refuses negative costs, a knee exponent below 1 and other out-of-range fields, naming the field") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    CHECK_NOTHROW(sim::check_kernel_model(sim::KernelModel{}));
    CHECK_NOTHROW(sim::check_kernel_model(sim::paper_kernel(h100)));
    CHECK_NOTHROW(sim::check_kernel_model(app::load_kernel("leanattn-h100", h100)));
    const auto refused = [](const std::function<void(sim::KernelModel&)>& change, const std::string& field) {
        sim::KernelModel k;
        change(k);
        try {
            sim::check_kernel_model(k);
        } catch (const InputError& e) {
            return std::string(e.what()).find(field) != std::string::npos;
        }
        return false;
    };
    CHECK(refused([](sim::KernelModel& k) { k.launch_ns = -1.0; }, "launch_ns"));
    CHECK(refused([](sim::KernelModel& k) { k.merge_ns_per_kb = -0.5; }, "merge_ns_per_kb"));
    CHECK(refused([](sim::KernelModel& k) { k.reduce_ns_per_kb = std::numeric_limits<double>::infinity(); }, "reduce_ns_per_kb"));
    CHECK(refused([](sim::KernelModel& k) { k.segment_ns = std::nan(""); }, "segment_ns"));
    CHECK(refused([](sim::KernelModel& k) { k.reduce_values_per_cta = -1; }, "reduce_values_per_cta"));
    CHECK(refused([](sim::KernelModel& k) { k.latency_knee_exponent = 0.5; }, "latency_knee_exponent"));
    CHECK(refused([](sim::KernelModel& k) { k.latency_knee_exponent = 65.0; }, "latency_knee_exponent"));
    CHECK(refused([](sim::KernelModel& k) { k.stream_latency_ns = 0.0; }, "stream_latency_ns"));
    CHECK(refused([](sim::KernelModel& k) { k.bytes_in_flight_per_sm = 0.5; }, "bytes_in_flight_per_sm"));
    CHECK(refused([](sim::KernelModel& k) { k.compute_overlap_loss = 1.5; }, "compute_overlap_loss"));
    CHECK(refused([](sim::KernelModel& k) { k.cta_ns_per_kb_by_path[3] = -1.0; }, "d128"));
    CHECK(refused([](sim::KernelModel& k) { k.cta_ns_per_kb_by_path[0] = std::nan(""); }, "d64"));
    CHECK(refused([](sim::KernelModel& k) { k.ctas_per_sm = -1; }, "ctas_per_sm"));
    CHECK(refused([](sim::KernelModel& k) { k.tensor_core_rows_min = 0; }, "tensor_core_rows_min"));
    CHECK_FALSE(refused([](sim::KernelModel& k) { k.launch_ns = 0.0; }, "launch_ns"));  // 0 is a cost, not an error
}

TEST_CASE("device_for_kernel takes the kernel's CTAs per SM unless it says 0, and the copy bandwidth law needs the device's copy bandwidth") {
    DeviceSpec d = app::load_device("h100-sxm");
    d.ctas_per_sm = 2;
    sim::KernelModel k;
    k.ctas_per_sm = 0;
    CHECK(sim::device_for_kernel(d, k).ctas_per_sm == 2);
    k.ctas_per_sm = 1;
    CHECK(sim::device_for_kernel(d, k).ctas_per_sm == 1);
    CHECK(sim::device_for_kernel(d, k).sms == d.sms);

    k.bandwidth_over_copy = 0.0;
    CHECK(sim::kernel_bandwidth_gb_per_s(k, d) == d.timing.hbm_bandwidth_gb_per_s);
    k.bandwidth_over_copy = 1.25;
    d.copy_bandwidth_gb_per_s = 2000.0;
    CHECK(sim::kernel_bandwidth_gb_per_s(k, d) == Approx(2500.0));
    d.copy_bandwidth_gb_per_s = 0.0;
    CHECK_THROWS_AS(sim::kernel_bandwidth_gb_per_s(k, d), InputError);
    // … and so does simulating under it.
    const Schedule plan = plan_of(one_output(8, 128, 4096), d, Strategy::no_split);
    CHECK_THROWS_AS(play(plan, &k), InputError);
}

TEST_CASE("a kernel that merges all peers at once never predicts a stream-k plan slower than the same kernel merging serially") {
    // With no per-peer cost, an all-at-once host finishes at (last flag) + merge_ns, a serial one at no earlier
    // than that (it pays merge_ns per peer, the last after the last flag). A stream-k plan is one wave whose
    // merges end their CTAs, so the makespan can only shrink. (With a per-peer cost the two orders trade
    // places: a serial host merges early peers while later ones still stream.)
    const DeviceSpec h100 = app::load_device("h100-sxm");
    sim::KernelModel all = app::load_kernel("leanattn-h100", h100);
    all.merge = sim::MergeOrder::all_at_once;
    all.merge_ns_per_partial = 0.0;
    all.merge_ns_per_kb = 0.0;
    sim::KernelModel serial = all;
    serial.merge = sim::MergeOrder::serial;
    const DeviceSpec planned = sim::device_for_kernel(h100, all);
    auto rng = seeded_rng(102);
    for (int i = 0; i < 120; ++i) {
        const Problem p = random_problem(rng, 1 << 17);
        for (StreamKRule rule : {StreamKRule::aligned, StreamKRule::paper}) {
            CAPTURE(describe(p, planned), rule == StreamKRule::paper);
            const Schedule plan = plan_of(p, planned, Strategy::stream_k, rule);
            CHECK(play(plan, &all).makespan_ns <= play(plan, &serial).makespan_ns * (1 + 1e-12));
        }
    }
    // One output over every SM: 100+ peers, all done at about the same time. Serially the host pays merge_ns per
    // peer; at once, one merge_ns.
    const Schedule long_one = plan_of(one_output(8, 128, 65536), planned, Strategy::stream_k, StreamKRule::paper);
    REQUIRE(long_one.grid == planned.sms);
    const double at_once = play(long_one, &all).makespan_ns, one_by_one = play(long_one, &serial).makespan_ns;
    CHECK(one_by_one - at_once > 32 * all.merge_ns);
}

TEST_CASE("a shared merge: an output split over CTAs that hold nothing else is merged by all of them, each a share of its rows") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    sim::KernelModel all = app::load_kernel("leanattn-h100", h100);
    all.merge = sim::MergeOrder::all_at_once;
    sim::KernelModel shared = all;
    shared.merge = sim::MergeOrder::shared;
    const DeviceSpec planned = sim::device_for_kernel(h100, all);
    // Falcon-7B at one request of 16k tokens: 5 row blocks of at most 15 rows, 16 CTAs on each, one segment each.
    Problem falcon = one_output(71, 64, 16384);
    falcon.tile = 64;
    PlanOptions o;
    o.strategy = Strategy::stream_k;
    o.grid = 80;
    const Schedule plan = make_schedule(falcon, planned, o);
    REQUIRE(plan.splits == 1);
    const sim::LaunchProgram program = sim::main_launch(plan, shared, 2);
    for (std::int64_t g = 0; g < plan.grid; ++g) {
        CAPTURE(g);
        int signals = 0, waits = 0, reductions = 0;
        for (std::int64_t i = program.first[g]; i < program.first[g + 1]; ++i) {
            const sim::Phase& ph = program.phases[i];
            signals += ph.signals ? 1 : 0;
            waits += ph.kind == sim::PhaseKind::wait ? 1 : 0;
            if (ph.kind == sim::PhaseKind::wait) CHECK(ph.peer / 16 == g / 16);  // a contributor of its own output
            reductions += ph.kind == sim::PhaseKind::work && ph.reduction && !ph.signals ? 1 : 0;
        }
        CHECK(signals == 1);  // its partial, the host's too
        CHECK(waits == 15);   // every other contributor
        CHECK(reductions == (g % 16 < 15 ? 1 : 0));  // 15 rows among 16 contributors: the last merges none
    }
    // A sixteenth of each merge on every CTA instead of all of it on the host: sooner where merges are dear.
    sim::KernelModel dear_all = all, dear_shared = shared;
    dear_all.merge_ns_per_kb = dear_shared.merge_ns_per_kb = 2000.0;
    const double at_once = play(plan, &dear_all).makespan_ns, by_all = play(plan, &dear_shared).makespan_ns;
    CHECK(by_all < at_once - 10 * 2000.0);
    // An output whose host or peers hold a segment of another output merges as all_at_once: the same programs.
    Problem two = one_output(8, 128, 4 * 128);
    two.batch = 2;
    two.ctx = {4 * 128, 4 * 128};
    o.grid = 3;  // CTA 1 holds the end of output 0 and the start of output 1
    const Schedule straddling = make_schedule(two, planned, o);
    const sim::LaunchProgram a = sim::main_launch(straddling, all, 2), b = sim::main_launch(straddling, shared, 2);
    REQUIRE(a.phases.size() == b.phases.size());
    for (std::size_t i = 0; i < a.phases.size(); ++i) CHECK((a.phases[i].kind == b.phases[i].kind && a.phases[i].amount == b.phases[i].amount));
}

TEST_CASE("an overlapped compute longer than the loads sets a segment's time: makespan = launch + set-up + compute + store") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    sim::KernelModel k = app::load_kernel("leanattn-h100", h100);
    REQUIRE(k.compute_overlaps_loads);
    k.compute_ns_per_kscore = 1e6;  // a millisecond per 1,024 scores: far above any stream
    k.compute_overlap_loss = 0.0;
    k.compute_drain_tokens = 0.0;  // the drain after the stream has a test of its own (below)
    const Problem p = one_output(8, 128, 8192);  // one output: no-split is one CTA and one segment
    const Schedule plan = plan_of(p, sim::device_for_kernel(h100, k), Strategy::no_split);
    REQUIRE(plan.grid == 1);
    const double compute = sim::compute_ns(k, p, 8192, 2);
    REQUIRE(compute > 1e7);
    const double makespan = play(plan, &k).makespan_ns;
    CHECK(makespan >= 8192 * static_cast<double>(sim::padded_rows(k, 8, 128)) / 1024.0 * k.compute_ns_per_kscore);
    CHECK(makespan == Approx(k.launch_ns + k.cta_setup_ns + k.plan_wait_ns + compute + k.output_store_ns).epsilon(1e-9));
    // With a loss, a share of the (shorter) stream shows: longer, by less than the stream could take alone.
    sim::KernelModel lossy = k;
    lossy.compute_overlap_loss = 1.0;
    const double with_loss = play(plan, &lossy).makespan_ns;
    CHECK(with_loss > makespan);
    CHECK(with_loss - makespan < 0.01 * compute);
    // Compute after the loads (no overlap): the per-kscore cost is not the paper kernel's and is not charged.
    sim::KernelModel after = k;
    after.compute_overlaps_loads = false;
    CHECK(play(plan, &after).makespan_ns < 0.01 * compute);
    // Every strategy, every CTA: no plan finishes before the compute of its busiest CTA's share.
    for (Strategy s : {Strategy::stream_k, Strategy::fixed_split}) {
        const Schedule split = plan_of(p, sim::device_for_kernel(h100, k), s);
        const double per_cta = compute / static_cast<double>(split.grid);
        CHECK(play(split, &k).makespan_ns >= per_cta);
    }
}

TEST_CASE("SimResult::ctas: one span per CTA when the timeline is recorded, inside [launch, makespan], the last one ending the launch") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel lean = app::load_kernel("leanattn-h100", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, lean);
    auto rng = seeded_rng(103);
    for (int i = 0; i < 60; ++i) {
        const Problem p = random_problem(rng, 1 << 16);
        for (const sim::KernelModel* k : {static_cast<const sim::KernelModel*>(nullptr), &lean}) {
            for (Strategy s : {Strategy::stream_k, Strategy::no_split, Strategy::fixed_split}) {
                CAPTURE(describe(p, planned), strategy_name(s), k != nullptr);
                const Schedule plan = plan_of(p, k != nullptr ? planned : h100, s);
                CHECK(play(plan, k, false).ctas.empty());
                const sim::SimResult r = play(plan, k, true);
                REQUIRE(r.ctas.size() == static_cast<std::size_t>(plan.grid));
                const double launch = k != nullptr ? k->launch_ns : h100.timing.launch_overhead_ns;
                CHECK(r.main_launch_start_ns == launch);
                double last = 0.0;
                for (std::size_t g = 0; g < r.ctas.size(); ++g) {
                    const sim::CtaSpan& c = r.ctas[g];
                    CHECK(c.start_ns >= launch);
                    CHECK(c.end_ns >= c.start_ns);
                    CHECK(c.wait_ns >= 0.0);
                    CHECK(c.reduce_ns >= 0.0);
                    CHECK(c.wait_ns + c.reduce_ns <= c.end_ns - c.start_ns + 1e-6);
                    CHECK(c.sm >= 0);
                    CHECK(c.sm < r.sms);
                    if (static_cast<std::int64_t>(g) < plan.device.resident_ctas()) {  // the first wave: CTA g on SM g mod SMs, at the launch
                        CHECK(c.sm == static_cast<std::int64_t>(g) % r.sms);
                        CHECK(c.start_ns == launch);
                    }
                    last = std::max(last, c.end_ns);
                }
                if (plan.launches == 1) {
                    CHECK(last == r.makespan_ns);
                } else {
                    CHECK(last + (k != nullptr ? k->reduce_launch_ns : h100.timing.launch_overhead_ns) < r.makespan_ns);
                }
                if (s == Strategy::no_split) {  // nothing split: no waits, no reduction work
                    for (const sim::CtaSpan& c : r.ctas) {
                        CHECK(c.wait_ns == 0.0);
                        CHECK(c.reduce_ns == 0.0);
                    }
                }
            }
        }
    }
}

TEST_CASE("reread_fraction discounts only the bytes of a KV head's later row blocks: fewer of them, never a slower plan") {
    const DeviceSpec device = app::load_device("h100-sxm");
    sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    Problem mqa = one_output(71, 64, 16384);  // 71 rows: 5 row blocks of 16
    mqa.batch = 8;
    mqa.ctx.assign(8, 4096);
    REQUIRE(mqa.row_blocks() == 5);
    Problem one_block = mqa;
    one_block.tile_rows = 128;  // the same problem in one tile: nothing is read twice
    for (Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        CAPTURE(strategy_name(s));
        const Schedule blocks = plan_of(mqa, device, s), whole = plan_of(one_block, device, s);
        double before = std::numeric_limits<double>::infinity();
        const double whole_before = play(whole, &kernel).makespan_ns;
        for (double fraction : {1.0, 0.5, 0.1, 0.0}) {
            kernel.reread_fraction = fraction;
            const double t = play(blocks, &kernel).makespan_ns;
            CHECK(t <= before * (1 + 1e-9));
            before = t;
            CHECK(play(whole, &kernel).makespan_ns == whole_before);  // no row blocks: nothing to discount
        }
    }
    kernel.reread_fraction = 1.5;
    CHECK_THROWS_WITH(sim::check_kernel_model(kernel), Catch::Contains("reread_fraction"));
}

TEST_CASE("a later row block counts at reread_fraction of its bytes, but in full when its CTA read the block before it just before") {
    const DeviceSpec device = app::load_device("h100-sxm");
    sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    kernel.reread_fraction = 0.25;
    kernel.reread_lag_mb = 0.0;  // the rule without the L2's aging
    Problem p = one_output(32, 128, 1448);  // 32 rows: 2 row blocks of 16
    p.batch = 4;
    p.ctx.assign(4, 1448);
    REQUIRE(p.row_blocks() == 2);
    const DeviceSpec planned = sim::device_for_kernel(device, kernel);
    const double fill = kernel.pipeline_fills_per_segment * kernel.bytes_in_flight_per_sm;
    const double full = 1448.0 * 128 * 2 * 2;  // one output's K and V
    // The HBM share of each stream phase, output by output, and of those that read a later block.
    const auto shares = [&](const Schedule& plan, std::vector<double>& later) {
        const sim::LaunchProgram program = sim::main_launch(plan, kernel, 2);
        for (const sim::Phase& ph : program.phases) {
            if (ph.kind != sim::PhaseKind::stream || ph.output < 0 || p.first_row_of(ph.output) == 0) continue;
            later.push_back((ph.amount - fill) / full);
        }
    };
    // No-split: each block on its own CTA, side by side with its neighbour's.
    std::vector<double> side_by_side;
    shares(plan_of(p, planned, Strategy::no_split), side_by_side);
    REQUIRE(side_by_side.size() == 4);
    for (double s : side_by_side) CHECK(s == Approx(0.25));
    // Stream-k on one CTA (the paper's rule, grid 1): it reads every output in turn, each later block right after
    // the block before it.
    PlanOptions one_cta;
    one_cta.grid = 1;
    one_cta.stream_k_rule = StreamKRule::paper;
    std::vector<double> in_turn;
    shares(make_schedule(p, planned, one_cta), in_turn);
    REQUIRE(in_turn.size() == 4);
    for (double s : in_turn) CHECK(s == Approx(1.0));
}

namespace {

// Each stream phase's HBM share of the K and V it reads (its bytes less the pipeline's fill, over the tokens' bytes),
// with the row block it reads: what main_launch charged.
struct ReadShare {
    std::int64_t block;
    double share, tokens;
};
std::vector<ReadShare> read_shares(const Schedule& plan, const sim::KernelModel& kernel) {
    const Problem& p = plan.problem;
    const double fill = kernel.pipeline_fills_per_segment * kernel.bytes_in_flight_per_sm, token_bytes = static_cast<double>(p.head_dim * 2 * 2);
    const sim::LaunchProgram program = sim::main_launch(plan, kernel, 2);
    std::vector<ReadShare> out;
    for (std::int64_t g = 0; g < plan.grid; ++g) {
        std::vector<Segment> segments;
        for (CtaWalker w(plan.view(), g); w.valid(); w.advance()) segments.push_back(w.current());
        std::size_t next = 0;
        for (std::int64_t i = program.first[static_cast<std::size_t>(g)]; i < program.first[static_cast<std::size_t>(g) + 1]; ++i) {
            const sim::Phase& ph = program.phases[static_cast<std::size_t>(i)];
            if (ph.kind != sim::PhaseKind::stream || ph.output < 0) continue;
            const Segment& seg = segments.at(next++);
            const std::int64_t ctx = p.ctx[static_cast<std::size_t>(seg.output / p.outputs_per_request())];
            const double tokens = static_cast<double>(std::min(seg.end * p.tile, ctx) - seg.begin * p.tile);
            out.push_back({seg.output % p.row_blocks(), (ph.amount - fill) / (tokens * token_bytes), tokens});
        }
    }
    return out;
}

}  // namespace

TEST_CASE("reread_lag_mb: a later row block's share grows with the bytes the GPU streams between two reads of its tokens") {
    const DeviceSpec device = app::load_device("h100-sxm");
    sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    kernel.reread_fraction = 0.25;
    Problem p = one_output(32, 128, 1448);  // 32 rows: 2 row blocks of 16
    p.batch = 4;
    p.ctx.assign(4, 1448);
    REQUIRE(p.row_blocks() == 2);
    const DeviceSpec planned = sim::device_for_kernel(device, kernel);
    // Side by side (no-split): both blocks read each token at the same place, the first from HBM, the second at
    // reread_fraction, however the L2 ages.
    for (const double lag_mb : {1e-3, 10.0, 1e5}) {
        kernel.reread_lag_mb = lag_mb;
        for (const ReadShare& r : read_shares(plan_of(p, planned, Strategy::no_split), kernel)) CHECK(r.share == Approx(r.block == 0 ? 1.0 : 0.25));
    }
    // One CTA reading every output in turn: a later block's tokens were read one output's LeanTiles before, while
    // nothing else streamed: n LeanTiles of that CTA's bytes between the two reads.
    PlanOptions one_cta;
    one_cta.grid = 1;
    one_cta.stream_k_rule = StreamKRule::paper;
    const Schedule in_turn = make_schedule(p, planned, one_cta);
    const std::int64_t n = (1448 + p.tile - 1) / p.tile;
    const double between_mb = static_cast<double>(n * p.tile * 128 * 2 * 2) / 1e6;
    for (const double lag_mb : {1e-3, 0.5, 2.0, 1e5}) {
        kernel.reread_lag_mb = lag_mb;
        const std::vector<ReadShare> shares = read_shares(in_turn, kernel);
        REQUIRE(shares.size() == 8);
        for (const ReadShare& r : shares) CHECK(r.share == Approx(r.block == 0 ? 1.0 : 0.25 + 0.75 * std::min(1.0, between_mb / lag_mb)));
    }
}

TEST_CASE("under reread_lag_mb each token is read from HBM once in full and by the other blocks at least at reread_fraction: never fewer bytes than side by side, never a slower plan for a longer L2") {
    std::mt19937_64 rng = seeded_rng(41);
    const DeviceSpec device = app::load_device("h100-sxm");
    sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    const DeviceSpec planned = sim::device_for_kernel(device, kernel);
    for (int trial = 0; trial < 40; ++trial) {
        Problem p = random_problem(rng, 1 << 14);
        p.head_dim = 128;
        p.tile = default_tile(128);
        p.q_len = 1;
        p.q_heads = p.kv_heads * std::uniform_int_distribution<std::int64_t>(17, 96)(rng);  // 2-6 row blocks
        REQUIRE(p.row_blocks() > 1);
        PlanOptions o;
        o.grid = std::uniform_int_distribution<std::int64_t>(1, planned.resident_ctas())(rng);
        o.stream_k_rule = trial % 2 == 0 ? StreamKRule::paper : StreamKRule::aligned;
        const Schedule plan = make_schedule(p, planned, o);
        CAPTURE(trial, p.batch, p.kv_heads, p.q_heads, plan.grid, o.stream_k_rule == StreamKRule::paper);
        double previous_ns = std::numeric_limits<double>::infinity();
        for (const double lag_mb : {1e-3, 1.0, 30.0, 1e5}) {
            kernel.reread_lag_mb = lag_mb;
            double hbm = 0.0, tokens = 0.0;
            for (const ReadShare& r : read_shares(plan, kernel)) {
                CHECK(r.share >= kernel.reread_fraction * (1 - 1e-12));
                CHECK(r.share <= 1.0 + 1e-12);
                hbm += r.share * r.tokens, tokens += r.tokens;
            }
            // Side by side: every token once in full, and once per other block at reread_fraction.
            const double blocks = static_cast<double>(p.row_blocks());
            CHECK(hbm >= tokens / blocks * (1.0 + (blocks - 1.0) * kernel.reread_fraction) * (1 - 1e-9));
            const double ns = play(plan, &kernel).makespan_ns;
            CHECK(ns <= previous_ns * (1 + 1e-9));
            previous_ns = ns;
        }
    }
    kernel.reread_lag_mb = -1.0;
    CHECK_THROWS_WITH(sim::check_kernel_model(kernel), Catch::Contains("reread_lag_mb"));
}

TEST_CASE("a reduce kernel of reduce_values_per_cta shares each output's partials among its CTAs, which read all of them together") {
    Problem p = one_output(16, 128, 8192);
    p.batch = 3;
    p.ctx.assign(3, 8192);
    const DeviceSpec device = app::load_device("h100-sxm");
    sim::KernelModel whole = app::load_kernel("leanattn-h100", device);
    const Schedule plan = make_schedule(p, sim::device_for_kernel(device, whole), PlanOptions{.strategy = Strategy::fixed_split, .splits = 8});
    whole.reduce_values_per_cta = 0;
    sim::KernelModel shared = whole;
    shared.reduce_values_per_cta = 256;
    const sim::LaunchProgram one = sim::reduce_launch(plan, whole), eight = sim::reduce_launch(plan, shared);
    REQUIRE(one.grid() == 3);
    REQUIRE(eight.grid() == 3 * 8);  // 16 rows x 128 dims = 2048 values: 8 CTAs of 256 per output
    const auto bytes = [](const sim::LaunchProgram& l) {
        double sum = 0.0;
        for (const sim::Phase& ph : l.phases) sum += ph.kind == sim::PhaseKind::stream ? ph.amount : 0.0;
        return sum;
    };
    CHECK(bytes(eight) == Approx(bytes(one)));  // the same partials, read in shares
    CHECK(bytes(one) == Approx(3.0 * 8 * sim::partial_bytes(p)));
    // Eight CTAs each merging an eighth finish sooner than one merging all (the merge's time is per KiB it reads).
    sim::SimOptions with_shared, with_whole;
    with_shared.kernel = &shared;
    with_whole.kernel = &whole;
    CHECK(sim::simulate(plan, with_shared).makespan_ns < sim::simulate(plan, with_whole).makespan_ns);
}

TEST_CASE("compute_drain_tokens: a segment's last tokens are computed after its stream, whatever the overlap") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    sim::KernelModel k = app::load_kernel("leanattn-h100", h100);
    REQUIRE(k.compute_overlaps_loads);
    const Problem p = one_output(8, 128, 8192);  // one output: no-split is one CTA and one segment
    const Schedule plan = plan_of(p, sim::device_for_kernel(h100, k), Strategy::no_split);
    REQUIRE(plan.grid == 1);
    sim::KernelModel none = k, some = k, more_than_the_segment = k;
    none.compute_drain_tokens = 0.0;
    some.compute_drain_tokens = 100.0;
    more_than_the_segment.compute_drain_tokens = 1e6;
    const double base = play(plan, &none).makespan_ns;
    CHECK(play(plan, &some).makespan_ns - base == Approx(sim::compute_ns(k, p, 100, 2)).epsilon(1e-9));
    // Never more than the segment's own tokens.
    CHECK(play(plan, &more_than_the_segment).makespan_ns - base == Approx(sim::compute_ns(k, p, 8192, 2)).epsilon(1e-9));
    // A negative drain is refused by name.
    sim::KernelModel bad = k;
    bad.compute_drain_tokens = -1.0;
    CHECK_THROWS_WITH(sim::check_kernel_model(bad), Catch::Contains("compute_drain_tokens"));
}

TEST_CASE("idle_sms_bandwidth_loss slows a plan on part of the SMs past the knee, not one on all of them, and 1 and above are refused") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    sim::KernelModel k = app::load_kernel("leanattn-h100", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, k);
    sim::KernelModel none = k, some = k;
    none.idle_sms_bandwidth_loss = 0.0;
    some.idle_sms_bandwidth_loss = 0.2;
    // 48 outputs of 64k tokens: no-split streams on 48 SMs, stream-k on every SM.
    Problem p = one_output(8, 128, 65536);
    p.batch = 6;
    p.kv_heads = 8;
    p.q_heads = 64;
    p.ctx.assign(6, 65536);
    const Schedule no_split = plan_of(p, planned, Strategy::no_split), stream_k = plan_of(p, planned, Strategy::stream_k);
    REQUIRE(no_split.grid == 48);
    REQUIRE(stream_k.grid == planned.sms);
    CHECK(play(no_split, &some).makespan_ns > 1.05 * play(no_split, &none).makespan_ns);
    CHECK(play(stream_k, &some).makespan_ns < 1.02 * play(stream_k, &none).makespan_ns);
    for (const double bad : {1.0, -0.1}) {
        sim::KernelModel refused = k;
        refused.idle_sms_bandwidth_loss = bad;
        CHECK_THROWS_WITH(sim::check_kernel_model(refused), Catch::Contains("idle_sms_bandwidth_loss"));
    }
}

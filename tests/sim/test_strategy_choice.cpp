// `--strategy auto` (sim/strategy_choice.hpp): the candidates weighed, the one chosen, the margins, the bounded
// weighing against every plan played in full, and problems whose answer is plain.
#include <catch2/catch.hpp>

#include <algorithm>

#include "apps/data_catalog.hpp"
#include "core/live_plan.hpp"
#include "decode_shape.hpp"
#include "random_problems.hpp"
#include "sim/makespan.hpp"
#include "sim/simulation.hpp"
#include "sim/strategy_choice.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

double simulated_us(const Problem& p, const DeviceSpec& planned, const PlanOptions& o, const sim::KernelModel& k, std::int64_t bytes) {
    sim::SimOptions so;
    so.kernel = &k;
    so.bytes_per_element = bytes;
    return sim::simulate(make_schedule(p, planned, o), so).makespan_ns / 1e3;
}

bool same_plan(const PlanOptions& a, const PlanOptions& b) {
    return a.strategy == b.strategy && a.splits == b.splits && a.grid == b.grid && a.stream_k_rule == b.stream_k_rule && a.snap == b.snap;
}

// The problem a candidate (or the choice) was planned on: `p`, or `p` cut into tiles of its tile_rows.
Problem planned_problem(Problem p, std::int64_t tile_rows) {
    if (tile_rows > 0) p.tile_rows = tile_rows;
    return p;
}

// The choice carries its plan: the one planning its options again on the same device makes, CTA for CTA.
void check_is_the_plan_of(const sim::StrategyChoice& c, const Problem& p, const DeviceSpec& planned) {
    const Schedule again = make_schedule(planned_problem(p, c.tile_rows), planned, c.options);
    CHECK(c.plan.device == planned);
    CHECK(c.plan.problem.tile_rows == again.problem.tile_rows);
    CHECK(c.plan.problem.ctx == again.problem.ctx);
    CHECK(c.plan.strategy == again.strategy);
    CHECK(c.plan.grid == again.grid);
    CHECK(c.plan.splits == again.splits);
    CHECK(c.plan.snap == again.snap);
    CHECK(c.plan.launches == again.launches);
    CHECK(c.plan.narrow_streams == again.narrow_streams);
    CHECK(c.plan.one_output_per_cta == again.one_output_per_cta);
    CHECK(c.plan.request_tiles == again.request_tiles);
    CHECK(c.plan.request_offset == again.request_offset);
    CHECK(c.splits == c.plan.splits);
}

}  // namespace

TEST_CASE("choose_strategy: every candidate is its plan's simulated time, the choice is one of them, the fastest but for its margins") {
    DeviceSpec h100 = app::load_device("h100-sxm");
    h100.ctas_per_sm = 2;  // the kernel's 1 is what the candidates are planned with
    const sim::KernelModel lean = app::load_kernel("leanattn-h100", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, lean);
    REQUIRE(planned.ctas_per_sm == 1);
    auto rng = seeded_rng(301);
    int chose[3] = {0, 0, 0};
    for (int i = 0; i < 40; ++i) {
        const Problem p = random_problem(rng, 1 << 17);
        const std::int64_t bytes = i % 3 == 0 ? 4 : 2;
        for (const sim::KernelModel& k : {lean, sim::paper_kernel(planned)}) {
            for (const bool vary : {true, false}) {
              for (const sim::Weighing weighing : {sim::Weighing::every_plan, sim::Weighing::bounded}) {
                CAPTURE(describe(p, planned), k.name, vary, weighing == sim::Weighing::bounded);
                const sim::StrategyChoice c = sim::choose_strategy(p, h100, k, bytes, PlanOptions{}, vary, weighing);
                check_is_the_plan_of(c, p, planned);
                const auto& cand = c.candidates;
                REQUIRE(cand.size() >= 3);
                CHECK(static_cast<std::int64_t>(cand.size()) <= sim::most_candidates(p, planned));
                CHECK(static_cast<std::int64_t>(cand.size()) <= sim::most_candidates(p, h100));  // more CTAs per SM: no smaller
                if (!vary) CHECK(cand.size() == 3);
                CHECK(cand.front().options.strategy == Strategy::stream_k);
                CHECK(cand.front().options.grid == 0);  // the aligned rule's
                CHECK(cand[1].options.strategy == Strategy::no_split);
                CHECK(cand[2].options.strategy == Strategy::fixed_split);
                CHECK(cand[2].options.splits == 0);  // FlashAttention-2's count
                // No-split must win by 3% (0.1% where the kernel reads it with half its warps), FlashAttention-2's fixed-split
                // by 5%, stream-k with k >= 2 CTAs on every output by 0.1%; half the split count, the count that fills the
                // resident CTAs once, and stream-k at the full, 3/4 or 1/2 grid, by 10%.
                const std::int64_t outputs = p.outputs();
                const std::int64_t whole = planned.resident_ctas() / outputs * outputs < planned.resident_ctas() ? planned.resident_ctas() / outputs * outputs : -1;
                const auto margin = [&](const sim::StrategyCandidate& x) {
                    if (x.tile_rows == sim::half_tile_rows) return sim::half_tile_margin;
                    if (x.tile_rows > 0) return sim::larger_tile_margin;
                    if ((x.options.grid != 0 && x.options.grid != whole) || x.options.splits != 0) return 0.10;
                    if (x.options.strategy == Strategy::no_split)  // the tie's where the kernel reads it with half its warps
                        return sim::default_plan_margin(sim::default_plans[1], make_schedule(planned_problem(p, x.tile_rows), planned, x.options));
                    if (x.options.strategy == Strategy::fixed_split) return sim::fixed_split_margin;
                    return sim::simpler_plan_margin;
                };
                const auto aligned = std::find_if(cand.begin(), cand.end(), [](const auto& x) { return x.options.strategy == Strategy::stream_k && x.options.grid == 0; });
                REQUIRE(aligned != cand.end());
                double fastest = cand.front().predicted_us;
                for (const sim::StrategyCandidate& x : cand) {
                    const Problem px = planned_problem(p, x.tile_rows);
                    const Schedule plan = make_schedule(px, planned, x.options);
                    CHECK(x.grid == plan.grid);
                    CHECK(x.splits == plan.splits);
                    // makespan.hpp: simulate()'s up to rounding; or (bounded, a plan that lost) a lower bound of it
                    if (x.simulated) CHECK(x.predicted_us == Approx(simulated_us(px, planned, x.options, k, bytes)).epsilon(1e-9));
                    else CHECK(x.predicted_us <= simulated_us(px, planned, x.options, k, bytes) * (1 + 1e-9));
                    CHECK((x.simulated || weighing == sim::Weighing::bounded));
                    CHECK(x.predicted_us > 0.0);
                    if (x.tile_rows > 0) {
                        CHECK(vary);
                        CHECK(p.tile_rows == 0);
                        CHECK(x.options.grid == 0);
                        CHECK(x.options.splits == 0);
                        if (x.tile_rows == sim::half_tile_rows) {
                            // the last candidate: stream-k's default plan on 8-row tiles, for KV heads of 9-16 rows
                            CHECK(&x == &cand.back());
                            CHECK((p.rows() > 8 && p.rows() <= 16));
                            CHECK(x.options.strategy == Strategy::stream_k);
                        } else {
                            // KV heads of more than 16 rows: each default plan on each larger tile, last, in that order
                            const std::vector<std::int64_t> larger = sim::larger_tile_rows(p);
                            const std::size_t at = static_cast<std::size_t>(&x - cand.data());
                            const std::size_t from_end = cand.size() - at - 1;
                            REQUIRE(from_end < 3 * larger.size());
                            CHECK(x.tile_rows == larger[larger.size() - 1 - from_end / 3]);
                            CHECK(x.options.strategy == sim::default_plans[2 - from_end % 3].strategy);
                            CHECK(p.rows() > 16);
                        }
                        continue;
                    }
                    if (x.options.strategy == Strategy::fixed_split && x.options.splits != 0) {
                        // half the heuristic's count, or the count that fills the resident CTAs once
                        std::int64_t longest = 0;  // the longest output's LeanTiles: a plan's most splits
                        for (std::int64_t b = 0; b < p.batch; ++b) longest = std::max(longest, p.tiles_of_request(b));
                        const std::int64_t one_wave = std::min<std::int64_t>({planned.resident_ctas() / outputs, 128, longest});
                        const bool halved = x.options.splits == cand[2].splits / 2;
                        CHECK((halved || (x.options.splits == one_wave && one_wave >= 2)));
                        // never the heuristic's own plan again (a count clamped onto it was weighed twice, two verdicts)
                        CHECK(x.splits != cand[2].splits);
                        if (halved) CHECK(cand[2].splits >= 4);
                        CHECK(vary);
                    }
                    if (x.options.grid != 0 || x.options.splits != 0) {  // a parameter varied: its own margin, checked below
                        if (x.options.grid == 0) continue;
                        // only stream-k, at whole outputs or the full, 3/4 or 1/2 grid, never the aligned rule's own
                        CHECK(x.options.strategy == Strategy::stream_k);
                        CHECK(vary);
                        CHECK(x.grid != aligned->grid);
                        if (x.options.grid == whole) CHECK(whole >= 2 * outputs);
                    } else if (x.simulated) {
                        fastest = std::min(fastest, x.predicted_us);
                    }
                }
                const auto chosen = std::find_if(cand.begin(), cand.end(),
                                                 [&](const sim::StrategyCandidate& x) { return same_plan(x.options, c.options) && x.tile_rows == c.tile_rows; });
                REQUIRE(chosen != cand.end());
                CHECK(chosen->simulated);
                CHECK(chosen->predicted_us == c.predicted_us);
                CHECK(chosen->splits == c.splits);
                // The choice's plan, made again, is predicted at the choice's time.
                CHECK(simulated_us(planned_problem(p, c.tile_rows), planned, c.options, k, bytes) == Approx(c.predicted_us).epsilon(1e-9));
                // A default plan chosen is at most the largest default margin slower than the fastest of them; on 8-row tiles,
                // taken unless slower than the choice so far by half_tile_margin, that much more.
                const double tile_allowance = c.tile_rows > 0 ? 1.0 - sim::half_tile_margin : 1.0;
                if (c.options.grid == 0 && c.options.splits == 0) CHECK(c.predicted_us * (1 - sim::fixed_split_margin) <= fastest * tile_allowance);
                // Stream-k stays only if no later plan beats it by its margin.
                if (chosen == cand.begin()) {
                    for (const sim::StrategyCandidate& x : cand) CHECK(x.predicted_us >= cand.front().predicted_us * (1 - margin(x)));
                }
                // A plan weighed before the choice is slower than it (a later plan replaces the current choice
                // only when faster by its margin), or not faster by its own margin than a plan the choice beat;
                // one weighed after it is not faster by its margin.
                // 8-row tiles, weighed last, replace the choice so far (auto's choice where it may not cut the tile) when
                // not slower by more than their margin.
                if (c.tile_rows == sim::half_tile_rows) {
                    const double so_far = sim::choose_strategy(planned_problem(p, default_tile_rows), h100, k, bytes, PlanOptions{}, vary, weighing).predicted_us;
                    CHECK(c.predicted_us < so_far * (1 - sim::half_tile_margin));
                } else {
                    for (auto x = cand.begin(); x != chosen; ++x) CHECK(x->predicted_us > c.predicted_us * (1 - margin(*x)));
                }
                for (auto x = chosen + 1; x != cand.end(); ++x) CHECK(x->predicted_us >= c.predicted_us * (1 - margin(*x)));
                ++chose[c.options.strategy == Strategy::no_split ? 0 : c.options.strategy == Strategy::fixed_split ? 1 : 2];
              }
            }
        }
    }
    CHECK(chose[0] + chose[1] + chose[2] == 320);
    CHECK(chose[2] > 0);  // random problems: stream-k is chosen sometimes …
    CHECK(chose[0] + chose[1] > 0);  // … and not always
}

namespace {

Problem with_q_len(Problem p, std::int64_t q_len) {
    p.q_len = q_len;
    return p;
}

Problem with_ctx(Problem p, std::vector<std::int64_t> ctx) {
    p.batch = static_cast<std::int64_t>(ctx.size());
    p.ctx = std::move(ctx);
    return p;
}

// Plans of every kind: one output and many, tiny and long contexts, ragged batches, GQA groups and MQA (row blocks),
// speculative q_len, then random ones.
std::vector<Problem> varied_problems(std::mt19937_64& rng) {
    std::vector<Problem> v = {
        decode_shape(1, 8, 1, 128, 65536),                                     // one output over a long context
        decode_shape(1, 32, 32, 128, 1),                                       // one token each
        decode_shape(2, 32, 32, 128, 17),                                      // tiny contexts
        decode_shape(64, 32, 8, 128, 1024),                                    // many outputs: several waves
        with_q_len(decode_shape(32, 32, 32, 96, 312), 8),                      // speculative, many outputs
        with_q_len(decode_shape(4, 32, 8, 128, 8192), 4),                      // GQA group 4 at q_len 4: row blocks
        decode_shape(4, 71, 1, 64, 8192),                                      // MQA: 71 rows, five row blocks
        with_ctx(decode_shape(1, 32, 8, 128, 1), {1, 100000, 300, 7000}),      // ragged, a 1-token request beside 100k
        with_ctx(decode_shape(1, 28, 4, 128, 1), {3067, 12, 40000, 40000, 5}), // ragged, GQA 7
        decode_shape(6, 48, 48, 64, 65536),                                    // the paper's Figure 8
        decode_shape(132, 8, 1, 128, 1024),                                    // one output per SM
    };
    for (int i = 0; i < 40; ++i) v.push_back(random_problem(rng, 1 << 17));
    return v;
}

}  // namespace

TEST_CASE("choose_strategy, bounded: every plan played in full chooses the same plan at the same time") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const DeviceSpec a100x8 = app::load_device("a100-80gb-x8");  // 8 HBM partitions
    const sim::KernelModel lean = app::load_kernel("leanattn-h100", h100);
    sim::KernelModel shared_sms = lean;  // two CTAs per SM: played by simulate()'s engine, never bounded
    shared_sms.ctas_per_sm = 2;
    auto rng = seeded_rng(907);
    int bounded = 0, weighed = 0;
    for (const Problem& p : varied_problems(rng)) {
        for (const DeviceSpec& gpu : {h100, a100x8}) {
            for (const sim::KernelModel& k : {lean, shared_sms, sim::paper_kernel(sim::device_for_kernel(gpu, lean))}) {
                const std::int64_t bytes = weighed % 5 == 0 ? 4 : 2;
                CAPTURE(describe(p, gpu), gpu.name, k.name, k.ctas_per_sm, bytes);
                // For the problem's lengths, and (every third problem) for a cache's capacity: the mean over three sets of
                // lengths, bounded by the mean of their bounds.
                const sim::PlannedLengths lengths = weighed % 3 == 0 ? sim::PlannedLengths::up_to_the_problems : sim::PlannedLengths::the_problems;
                CAPTURE(lengths == sim::PlannedLengths::up_to_the_problems);
                const sim::StrategyChoice full = sim::choose_strategy(p, gpu, k, bytes, PlanOptions{}, true, sim::Weighing::every_plan, lengths);
                const sim::StrategyChoice fast = sim::choose_strategy(p, gpu, k, bytes, PlanOptions{}, true, sim::Weighing::bounded, lengths);
                CHECK(same_plan(fast.options, full.options));
                CHECK(fast.tile_rows == full.tile_rows);
                CHECK(fast.splits == full.splits);
                CHECK(fast.predicted_us == full.predicted_us);
                check_is_the_plan_of(fast, p, sim::device_for_kernel(gpu, k));  // for a capacity too: the plan at it
                REQUIRE(fast.candidates.size() == full.candidates.size());
                for (std::size_t i = 0; i < full.candidates.size(); ++i) {
                    const sim::StrategyCandidate &a = fast.candidates[i], &b = full.candidates[i];
                    CHECK(same_plan(a.options, b.options));
                    CHECK(a.tile_rows == b.tile_rows);
                    CHECK(a.grid == b.grid);
                    CHECK(a.splits == b.splits);
                    CHECK(b.simulated);
                    if (a.simulated) CHECK(a.predicted_us == b.predicted_us);
                    else CHECK(a.predicted_us <= b.predicted_us * (1 + 1e-9));  // a lower bound
                    bounded += a.simulated ? 0 : 1;
                    ++weighed;
                }
            }
        }
    }
    CHECK(bounded > weighed / 4);  // most losing plans were never played to their end
}

TEST_CASE("choose_strategy keeps the caller's stream-k rule and overrides the caller's strategy and splits") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel lean = app::load_kernel("leanattn-h100", h100);
    PlanOptions base;
    base.strategy = Strategy::fixed_split;
    base.splits = 7;
    base.stream_k_rule = StreamKRule::paper;
    const sim::StrategyChoice c = sim::choose_strategy(decode_shape(2, 32, 8, 128, 20000), h100, lean, 2, base);
    for (const sim::StrategyCandidate& x : c.candidates) CHECK(x.options.stream_k_rule == StreamKRule::paper);
    CHECK(c.candidates.front().options.splits == 0);
    CHECK(c.candidates[1].options.splits == 0);
    CHECK(c.options.stream_k_rule == StreamKRule::paper);
}

TEST_CASE("one output over a long context: auto splits it (no-split would leave all SMs but one idle)") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    for (const sim::KernelModel& k : {app::load_kernel("leanattn-h100", h100), sim::paper_kernel(h100)}) {
        CAPTURE(k.name);
        const Problem p = decode_shape(1, 8, 1, 128, 65536);  // batch 1, one KV head: one output
        const sim::StrategyChoice c = sim::choose_strategy(p, h100, k, 2);
        CHECK(c.options.strategy != Strategy::no_split);
        const auto chosen = std::find_if(c.candidates.begin(), c.candidates.end(), [&](const sim::StrategyCandidate& x) { return same_plan(x.options, c.options); });
        REQUIRE(chosen != c.candidates.end());
        CHECK(chosen->grid >= 8);  // the one output over many CTAs
        REQUIRE(c.candidates[1].options.strategy == Strategy::no_split);
        CHECK(c.predicted_us < 0.25 * c.candidates[1].predicted_us);
    }
}

TEST_CASE("one output per SM and nothing to split: one whole output per CTA (stream-k's plan is no-split's, and no-split ties)") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel lean = app::load_kernel("leanattn-h100", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, lean);
    const Problem p = decode_shape(h100.sms, 8, 1, 128, 1024);  // 132 outputs on 132 one-CTA SMs: one wave already
    const sim::StrategyChoice c = sim::choose_strategy(p, h100, lean, 2);
    const Schedule chosen = make_schedule(p, planned, c.options);
    CHECK(chosen.launches == 1);
    CHECK(chosen.grid == p.outputs());
    CHECK((chosen.strategy == Strategy::no_split || chosen.one_output_per_cta));
    REQUIRE(c.candidates[1].options.strategy == Strategy::no_split);
    CHECK(c.predicted_us == c.candidates[1].predicted_us);  // the same plan, the same time
}

TEST_CASE("a few long MQA outputs: auto weighs 16 and 8 CTAs per output, then the split count that fills the SMs once, which must win by 10%") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel host = app::load_kernel("leanattn-h100-host", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, host);
    // Falcon-7B, one request of 16k tokens: 71 query heads on one KV head, 5 row blocks of 16 rows: 5 outputs.
    const Problem p = decode_shape(1, 71, 1, 64, 16384);
    REQUIRE(p.outputs() == 5);
    const std::int64_t one_wave = planned.resident_ctas() / p.outputs();
    const sim::StrategyChoice c = sim::choose_strategy(p, h100, host, 2);
    const auto find = [&](Strategy s, std::int64_t grid_or_splits) {
        return std::find_if(c.candidates.begin(), c.candidates.end(), [&](const sim::StrategyCandidate& x) {
            return x.options.strategy == s && (s == Strategy::fixed_split ? x.options.splits : x.options.grid) == grid_or_splits;
        });
    };
    const auto sixteen = find(Strategy::stream_k, 16 * p.outputs()), eight = find(Strategy::stream_k, 8 * p.outputs());
    const auto wave = find(Strategy::fixed_split, one_wave);
    REQUIRE(sixteen != c.candidates.end());
    REQUIRE(eight != c.candidates.end());
    REQUIRE(wave != c.candidates.end());
    CHECK(sixteen < wave);  // one launch is weighed before another split count
    // Measured on an H100 as host-lengths steps: 14.5 us at 16 CTAs per output, 18.0 at 8, 15.5 at 26 (the largest k),
    // fixed-split at 26 splits 14.6 (bench/results/raw/gpu-2026-11-26-contributors); in Python's timing 15.2 and 18.6.
    CHECK(c.options.strategy == Strategy::stream_k);
    CHECK(c.options.grid == 16 * p.outputs());
    CHECK(sixteen->predicted_us < eight->predicted_us);
    CHECK_FALSE(sim::beats(wave->predicted_us, c.predicted_us, 0.10));  // fixed-split's one wave did not win by its 10%
    // Without varied parameters only the three default plans are weighed.
    CHECK(sim::choose_strategy(p, h100, host, 2, PlanOptions{}, false).candidates.size() == 3);
}

TEST_CASE("stream-k at the full, three-quarter and half grid is weighed only for problems of at most half as many outputs as resident CTAs") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel host = app::load_kernel("leanattn-h100-host", h100);
    const std::int64_t slots = sim::device_for_kernel(h100, host).resident_ctas();
    // The stream-k candidates at 10% that are neither the aligned rule's default nor k CTAs on every output.
    const auto grids_weighed = [&](const Problem& p) {
        std::vector<std::int64_t> grids;
        for (const sim::StrategyCandidate& c : sim::choose_strategy(p, h100, host, 2).candidates) {
            if (c.options.strategy == Strategy::stream_k && c.options.grid != 0 && c.margin == 0.10) grids.push_back(c.options.grid);
        }
        return grids;
    };
    // Falcon-7B at B=8 of 1,479 tokens: 40 outputs. As host-lengths steps the model prefers 99 CTAs by 11% over the
    // aligned rule's one whole output per CTA: the one held-out problem where such a grid wins.
    const Problem few = decode_shape(8, 71, 1, 64, 1479);
    REQUIRE(2 * few.outputs() <= slots);
    const std::vector<std::int64_t> weighed = grids_weighed(few);
    CHECK(std::find(weighed.begin(), weighed.end(), slots * 3 / 4) != weighed.end());
    const sim::StrategyChoice c = sim::choose_strategy(few, h100, host, 2);
    CHECK(c.options.strategy == Strategy::stream_k);
    CHECK(c.options.grid == slots * 3 / 4);
    // Llama-3-8B at B=16 (8 KV heads: 128 outputs): none of those grids.
    const Problem many = decode_shape(16, 32, 8, 128, 4096);
    REQUIRE(2 * many.outputs() > slots);
    CHECK(grids_weighed(many).empty());
}

TEST_CASE("stream-k of one whole output per CTA is no-split's plan: auto takes no-split for it, at the same predicted time, but for a capacity") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel host = app::load_kernel("leanattn-h100-host", h100);
    // Llama-3.1-405B, 8 requests of 4k tokens, 4 new tokens each: 256 outputs of 16 rows, whose aligned stream-k plan is
    // one whole output per CTA (measured on an H100: 70.6 us as stream-k, 70.9 as no-split, the same CTAs). The tiles'
    // rows are the caller's here (16), so that no larger tile is weighed beside them (auto takes a 64-row tile there).
    const Problem p = planned_problem(with_q_len(decode_shape(8, 128, 8, 128, 4096), 4), 16);
    for (const sim::Weighing weighing : {sim::Weighing::bounded, sim::Weighing::every_plan}) {
        const sim::StrategyChoice c = sim::choose_strategy(p, h100, host, 2, PlanOptions{}, true, weighing);
        REQUIRE(c.candidates.size() >= 2);
        CHECK(c.candidates[0].options.strategy == Strategy::stream_k);
        CHECK(c.candidates[0].grid == p.outputs());  // one whole output per CTA
        CHECK(c.candidates[1].predicted_us == c.candidates[0].predicted_us);
        CHECK(c.options.strategy == Strategy::no_split);
        CHECK(c.predicted_us == c.candidates[0].predicted_us);
    }
    // For a cache's capacity the two are weighed apart, each by its mean time at the capacity and at two draws of ragged
    // live lengths (the steps live_schedule derives), where stream-k's walk and no-split's waves differ.
    const DeviceSpec planned = sim::device_for_kernel(h100, host);
    const sim::MakespanModel model(host, planned);
    const auto mean_us = [&](const Schedule& plan) {
        double ns = model.makespan_ns(plan, 2);
        for (std::uint64_t draw : {1, 2}) ns += model.makespan_ns(live_schedule(plan, sim::ragged_lengths(p, draw)), 2);
        return ns / 3e3;
    };
    const double stream_k_us = mean_us(make_schedule(p, planned, {.strategy = Strategy::stream_k}));
    const double no_split_us = mean_us(make_schedule(p, planned, {.strategy = Strategy::no_split}));
    CHECK(stream_k_us != Approx(no_split_us).epsilon(1e-3));
    for (const sim::Weighing weighing : {sim::Weighing::bounded, sim::Weighing::every_plan}) {
        const sim::StrategyChoice c = sim::choose_strategy(p, h100, host, 2, PlanOptions{}, true, weighing, sim::PlannedLengths::up_to_the_problems);
        REQUIRE(c.candidates.size() >= 2);
        CHECK(c.candidates[0].predicted_us == Approx(stream_k_us).epsilon(1e-12));
        CHECK(c.candidates[1].predicted_us == Approx(no_split_us).epsilon(1e-12));
        CHECK(c.candidates[0].simulated);  // the default plans are always played; others may be ruled out by a bound
        CHECK(c.candidates[1].simulated);
        if (sim::beats(no_split_us, stream_k_us, sim::capacity_no_split_margin)) CHECK(c.predicted_us <= no_split_us);
        else CHECK(c.options.strategy != Strategy::no_split);
    }
    // Where stream-k's plan splits outputs, no-split still has to win by its margin.
    const Problem split = decode_shape(1, 32, 8, 128, 16384);
    const sim::StrategyChoice d = sim::choose_strategy(split, h100, host, 2);
    CHECK(d.candidates[0].grid != split.outputs());
    CHECK(d.options.strategy != Strategy::no_split);
}

TEST_CASE("KV heads of 16 rows: auto weighs them as two 8-row tiles last, and takes that unless predicted slower by its margin") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel host = app::load_kernel("leanattn-h100-host", h100);
    // Llama-3.1-405B, one request of 16k tokens: 128 query heads on 8 KV heads, 16 rows each (measured on an H100:
    // stream-k 37.5 us on 16-row tiles, 34.4 on 8-row ones; in Python's timing, 37.3 and 33.9 beside cuDNN's 33.3).
    const Problem p = decode_shape(1, 128, 8, 128, 16384);
    REQUIRE(p.rows() == 16);
    const sim::StrategyChoice c = sim::choose_strategy(p, h100, host, 2);
    const sim::StrategyCandidate& cut = c.candidates.back();
    CHECK(cut.tile_rows == 8);
    CHECK(cut.options.strategy == Strategy::stream_k);
    // The kernel models over-predict 8-row tiles (strategy_choice.hpp): taken unless predicted slower than the choice
    // so far by more than half_tile_margin (the fit of v27's sweep predicts them 11% slower here: 16-row tiles chosen;
    // measured in Python's timing 33.5 us against 33.0-33.3, cuDNN 33.2-33.3).
    if (c.tile_rows == 8) CHECK(c.predicted_us == cut.predicted_us);
    else CHECK_FALSE(sim::beats(cut.predicted_us, c.predicted_us, sim::half_tile_margin));
    CHECK(c.options.strategy == Strategy::stream_k);
    // Where 8-row tiles cost no more than 16-row ones (compute and the row blocks' re-reads free), they are taken.
    sim::KernelModel free_rows = host;
    free_rows.compute_ns_per_kscore = free_rows.compute_ns_per_mmac = 0.0;
    free_rows.reread_fraction = 0.0;
    const sim::StrategyChoice f = sim::choose_strategy(p, h100, free_rows, 2);
    CHECK(f.candidates.back().tile_rows == 8);
    CHECK(f.tile_rows == 8);
    // Not weighed where the caller chose the tile's rows, where a KV head has 8 rows or fewer, or more than 16 (larger
    // tiles are weighed there instead).
    for (const Problem& q : {planned_problem(p, 16), decode_shape(1, 64, 8, 128, 16384), with_q_len(p, 2)}) {
        CAPTURE(q.rows(), q.tile_rows);
        const sim::StrategyChoice d = sim::choose_strategy(q, h100, host, 2);
        CHECK(d.tile_rows != sim::half_tile_rows);
        for (const sim::StrategyCandidate& x : d.candidates) CHECK((x.tile_rows == 0 || (q.rows() > 16 && x.tile_rows > 16)));
    }
    // Only the three default plans without varied parameters.
    CHECK(sim::choose_strategy(p, h100, host, 2, PlanOptions{}, false).tile_rows == 0);
}

TEST_CASE("larger_tile_rows: 32, 64 and 128 rows while each holds fewer row blocks and the GPU kernels compute it, none at head dim 64") {
    const auto rows_of = [](std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t q_len) {
        return sim::larger_tile_rows(with_q_len(decode_shape(1, q_heads, kv_heads, head_dim, 4096), q_len));
    };
    using Rows = std::vector<std::int64_t>;
    CHECK(rows_of(32, 8, 128, 4) == Rows{});              // 16 rows: one tile already
    CHECK(rows_of(40, 8, 128, 4) == Rows{32});            // 20 rows
    CHECK(rows_of(40, 8, 128, 8) == Rows{32, 64});        // 40 rows: two blocks of 20, or one
    CHECK(rows_of(71, 1, 128, 1) == Rows{32, 64, 128});   // 71 rows: 3, 2 or 1 blocks
    CHECK(rows_of(71, 1, 64, 1) == Rows{});               // Falcon-7B: none at head dim 64
    CHECK(rows_of(128, 1, 128, 8) == Rows{32, 64, 128});  // 1,024 rows: at most 128 per tile
    CHECK(rows_of(128, 8, 256, 8) == Rows{32, 64});       // head dim 256: at most 64 rows per tile
    CHECK(largest_gpu_tile_rows(256) == 64);
    CHECK(largest_gpu_tile_rows(128) == 128);
}

TEST_CASE("KV heads of more than 16 rows: auto weighs each default plan on larger tiles last, and takes one predicted faster") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel live = app::load_kernel("leanattn-h100", h100);
    // Llama-3.1-405B, 32 requests of 2k tokens, 8 new tokens: 128 rows per KV head. Measured on an H100 (steps of run(),
    // bench/results/raw/gpu-2026-11-27-lag-auto): 310 us at best on 16-row tiles (eight blocks), 282 on 32, 234 on 64 and
    // 210 on one 128-row tile, whatever the strategy.
    const Problem p = with_q_len(decode_shape(32, 128, 8, 128, 2048), 8);
    REQUIRE(p.rows() == 128);
    for (const sim::Weighing weighing : {sim::Weighing::bounded, sim::Weighing::every_plan}) {
        const sim::StrategyChoice c = sim::choose_strategy(p, h100, live, 2, PlanOptions{}, true, weighing);
        REQUIRE(c.candidates.size() >= 9);
        const std::size_t n = c.candidates.size();
        const std::int64_t tiles[9] = {32, 32, 32, 64, 64, 64, 128, 128, 128};
        for (std::size_t i = 0; i < 9; ++i) {
            CAPTURE(i);
            CHECK(c.candidates[n - 9 + i].tile_rows == tiles[i]);
            CHECK(c.candidates[n - 9 + i].options.strategy == sim::default_plans[i % 3].strategy);
        }
        CHECK(c.tile_rows > 16);  // predicted faster than every plan on 16-row tiles
        const auto chosen = std::find_if(c.candidates.begin(), c.candidates.end(), [&](const sim::StrategyCandidate& x) {
            return x.tile_rows == c.tile_rows && same_plan(x.options, c.options);
        });
        REQUIRE(chosen != c.candidates.end());
        CHECK(chosen->predicted_us == c.predicted_us);
        for (const sim::StrategyCandidate& x : c.candidates) {
            if (x.tile_rows == 0 && x.simulated) CHECK(c.predicted_us < x.predicted_us);
        }
    }
    // The caller's tile rows stay: nothing larger is weighed.
    const sim::StrategyChoice fixed = sim::choose_strategy(planned_problem(p, 16), h100, live, 2);
    CHECK(fixed.tile_rows == 0);
    for (const sim::StrategyCandidate& x : fixed.candidates) CHECK(x.tile_rows == 0);
}

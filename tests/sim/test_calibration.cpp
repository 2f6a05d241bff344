// Calibration (sim/calibration.hpp) on synthetic measurements: runs "measured" by a known kernel model (the
// truth), a fit started away from it, and the helpers a report is made of (errors, the fastest run).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <string>

#include "apps/data_catalog.hpp"
#include "decode_shape.hpp"
#include "random_problems.hpp"
#include "sim/calibration.hpp"
#include "sim/simulation.hpp"

using namespace leanattn;
using namespace leanattn::testing;
using Catch::Detail::Approx;

namespace {

const Strategy strategies[] = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};

// Decode shapes like the calibration sweep's (data/calibration): the kernel's head dims, GQA or not, one
// query token, contexts from a few hundred tokens to 32k, some batches ragged.
Problem sweep_problem(std::mt19937_64& rng) {
    Problem p;
    const std::int64_t dims[] = {64, 128, 256};
    p.head_dim = dims[uniform(rng, 0, 2)];
    p.kv_heads = std::int64_t{1} << uniform(rng, 0, 5);
    p.q_heads = p.kv_heads * (uniform(rng, 0, 1) == 1 ? 4 : 1);
    p.batch = log_uniform(rng, 1, 8);
    p.q_len = 1;
    p.tile = default_tile(p.head_dim);
    const bool ragged = uniform(rng, 0, 2) == 0;
    const std::int64_t shared = log_uniform(rng, 256, 32768);
    for (std::int64_t b = 0; b < p.batch; ++b) p.ctx.push_back(ragged ? log_uniform(rng, 256, 32768) : shared);
    return p;
}

// Every problem under each strategy, "measured" as `truth` predicts it, on the grid the plan has.
sim::PlannedRuns synthetic_sweep(const std::vector<Problem>& problems, const DeviceSpec& device, const sim::KernelModel& truth) {
    std::vector<sim::MeasuredRun> runs;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        for (Strategy s : strategies) {
            sim::MeasuredRun r;
            r.label = "problem " + std::to_string(i);
            r.problem = problems[i];
            r.bytes_per_element = i % 5 == 4 ? 4 : 2;
            r.strategy = s;
            runs.push_back(r);
        }
    }
    const sim::PlannedRuns plans = sim::plan_runs(runs, device, truth);
    const std::vector<double> truth_us = sim::predict_us(plans, truth);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        runs[i].grid = plans.plans[i].grid;
        runs[i].measured_us = truth_us[i];
    }
    return sim::plan_runs(runs, device, truth);
}

// A kernel model like data/kernels/leanattn-h100.json (its values rounded), written here so that a refit of
// the data file does not move the fit test's ground.
sim::KernelModel h100_like_kernel() {
    sim::KernelModel k;
    k.name = "truth";
    k.ctas_per_sm = 1;
    k.merge = sim::MergeOrder::all_at_once;
    k.compute_overlaps_loads = true;
    k.tensor_core_rows_min = 16;
    k.bytes_in_flight_per_sm = 97000;
    k.stream_latency_ns = 175;
    k.latency_knee_exponent = 40;
    k.bandwidth_over_copy = 1.24;
    k.sm_latency_spread = 0.29;
    k.compute_ns_per_kscore = 444;
    k.compute_ns_per_mmac = 736;
    k.compute_overlap_loss = 0.43;
    k.tile_compute_ns = 0;
    k.launch_ns = 6470;
    k.cta_setup_ns = 1250;
    k.plan_wait_ns = 1610;
    k.stream_k_walk_ns = 1160;
    k.segment_ns = 2990;
    k.pipeline_fills_per_segment = 0.9;
    k.partial_store_ns = 813;
    k.partial_store_ns_per_kb = 172;
    k.output_store_ns = 100;
    k.merge_ns = 1390;
    k.merge_ns_per_partial = 50;
    k.merge_ns_per_kb = 65;
    k.reduce_launch_ns = 1860;
    k.reduce_cta_ns = 100;
    k.reduce_ns_per_kb = 333;
    const double by_path[sim::KernelModel::path_count] = {1, 17, 1, 1, 16.6, 13.2, 10};
    std::copy(std::begin(by_path), std::end(by_path), std::begin(k.cta_ns_per_kb_by_path));
    return k;
}

sim::MeasuredRun measured(Strategy s, double us, const std::string& label = "p") {
    sim::MeasuredRun r;
    r.label = label;
    r.strategy = s;
    r.measured_us = us;
    return r;
}

// `count` random problems (seeded_rng(seed)) "measured" as `truth` predicts them.
sim::PlannedRuns random_sweep(std::uint64_t seed, int count, const DeviceSpec& device, const sim::KernelModel& truth) {
    auto rng = seeded_rng(seed);
    std::vector<Problem> problems;
    for (int i = 0; i < count; ++i) problems.push_back(sweep_problem(rng));
    return synthetic_sweep(problems, device, truth);
}
// The default fit parameter of that name, alone.
std::vector<sim::FitParameter> only(const sim::PlannedRuns& planned, const std::string& name) {
    std::vector<sim::FitParameter> one;
    for (const sim::FitParameter& p : sim::default_fit_parameters(planned)) {
        if (p.name == name) one.push_back(p);
    }
    return one;
}

}  // namespace

TEST_CASE("plan_runs remakes each run's plan with the kernel's CTAs per SM and says whether it plays in the GPU's waves") {
    DeviceSpec device = app::load_device("h100-sxm");
    device.ctas_per_sm = 2;  // the kernel's 1 must win
    const sim::KernelModel truth = app::load_kernel("leanattn-h100", device);
    REQUIRE(truth.ctas_per_sm == 1);
    auto rng = seeded_rng(201);
    const std::vector<Problem> problems = {sweep_problem(rng), sweep_problem(rng)};
    sim::PlannedRuns planned = synthetic_sweep(problems, device, truth);
    REQUIRE(planned.plans.size() == 6);
    for (std::size_t i = 0; i < planned.plans.size(); ++i) {
        CHECK(planned.plans[i].device.ctas_per_sm == 1);
        CHECK(planned.plans[i].strategy == planned.runs[i].strategy);
        CHECK(planned.waves[i] == sim::Waves::not_recorded);  // the GPU's grid, but no occupancy recorded
    }
    std::vector<sim::MeasuredRun> runs = planned.runs;
    for (sim::MeasuredRun& r : runs) r.gpu_slots = 132;  // an H100 of one CTA per SM, as the kernel model says
    runs[1].grid += 1;
    const sim::PlannedRuns off = sim::plan_runs(runs, device, truth);
    using W = sim::Waves;
    CHECK(off.waves == std::vector<W>{W::exact, W::differ, W::exact, W::exact, W::exact, W::exact});

    // No-split on 256 outputs: two waves of the model's 132 CTAs. A GPU whose occupancy held two CTAs per SM ran it in
    // one, and the replay's waves are not the GPU's; on one CTA per SM they are.
    sim::MeasuredRun wide = measured(Strategy::no_split, 50.0);
    wide.problem = decode_shape(8, 32, 32, 128, 4096);
    wide.grid = 256;
    wide.gpu_slots = 264;
    CHECK(sim::plan_runs({wide}, device, truth).waves == std::vector<W>{W::differ});
    wide.gpu_slots = 132;
    CHECK(sim::plan_runs({wide}, device, truth).waves == std::vector<W>{W::exact});
    // 228 slots (114 SMs x 2) would also take it in two waves, of other CTAs (228 + 28 against 132 + 124): not exact.
    wide.gpu_slots = 228;
    CHECK(sim::plan_runs({wide}, device, truth).waves == std::vector<W>{W::differ});
    // A grid that fits at once in both is one wave either way.
    wide.problem = decode_shape(4, 32, 32, 128, 4096);
    wide.grid = 128;
    CHECK(sim::plan_runs({wide}, device, truth).waves == std::vector<W>{W::exact});
    // predict_us: the same on one thread as on every core, and each the plan's simulated makespan.
    const std::vector<double> all = sim::predict_us(planned, truth), one = sim::predict_us(planned, truth, 1);
    CHECK(all == one);
    sim::SimOptions o;
    o.kernel = &truth;
    o.bytes_per_element = planned.runs[3].bytes_per_element;
    CHECK(all[3] == sim::simulate(planned.plans[3], o).makespan_ns / 1e3);
}

TEST_CASE("plan_runs replays fixed-split at the split count the GPU ran, the planner's own where none is recorded") {
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    const Problem p = decode_shape(1, 71, 1, 64, 16384);
    sim::MeasuredRun ran = measured(Strategy::fixed_split, 14.7);
    ran.problem = p;
    sim::MeasuredRun unrecorded = ran;
    ran.splits = 26;  // one wave (resident CTAs / outputs), not the heuristic's count
    const sim::PlannedRuns planned = sim::plan_runs({ran, unrecorded}, device, kernel);
    CHECK(planned.plans[0].splits == 26);
    CHECK(planned.plans[0].grid == 26 * p.outputs());
    CHECK(planned.plans[1].splits != 26);
    CHECK(planned.plans[1].splits == make_schedule(p, sim::device_for_kernel(device, kernel), PlanOptions{Strategy::fixed_split}).splits);
}

TEST_CASE("plan_runs replays stream-k at the grid and snap the GPU ran, the rule's snap at that grid where none is recorded") {
    // One output of 8 rows over 16k tokens on 64 CTAs: the aligned rule of 7d0d042 took snap 32 (32 CTAs empty), today's
    // rule a balanced snap; a record of the old run must replay the old plan.
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    const Problem p = decode_shape(1, 8, 1, 128, 16384);
    sim::MeasuredRun ran = measured(Strategy::stream_k, 34.7);
    ran.problem = p;
    ran.grid = 64;
    sim::MeasuredRun unrecorded = ran;
    ran.snap = 32;
    const sim::PlannedRuns planned = sim::plan_runs({ran, unrecorded}, device, kernel);
    CHECK(planned.plans[0].grid == 64);
    CHECK(planned.plans[0].snap == 32);
    CHECK(planned.plans[1].grid == 64);
    CHECK(planned.plans[1].snap != 32);
    PlanOptions at_grid;
    at_grid.grid = 64;
    CHECK(planned.plans[1].snap == make_schedule(p, sim::device_for_kernel(device, kernel), at_grid).snap);
}

TEST_CASE("plan_runs replays a run as the kernel that ran read it: with half the warps only where the record says so") {
    // Llama-3-8B B=8 at 4k under no-split: today's kernel reads it with half its warps; kernels before v31 (records
    // without "narrow_streams") with all of them.
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    sim::MeasuredRun ran = measured(Strategy::no_split, 50.7);
    ran.problem = decode_shape(8, 32, 8, 128, 4096);
    sim::MeasuredRun before = ran;
    ran.narrow_streams = true;
    const sim::PlannedRuns planned = sim::plan_runs({ran, before}, device, kernel);
    REQUIRE(make_schedule(ran.problem, sim::device_for_kernel(device, kernel), PlanOptions{Strategy::no_split}).narrow_streams);
    CHECK(planned.plans[0].narrow_streams);
    CHECK_FALSE(planned.plans[1].narrow_streams);
    const std::vector<double> us = sim::predict_us(planned, kernel, 1);
    CHECK(us[0] < 0.97 * us[1]);  // without the idle SMs' loss
}

TEST_CASE("default_fit_parameters: distinct fields of the model, the memory law and costs, and the paths the runs use") {
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel truth = app::load_kernel("leanattn-h100", device);
    auto rng = seeded_rng(202);
    Problem d128 = sweep_problem(rng);
    d128.head_dim = 128, d128.tile = default_tile(128), d128.q_heads = d128.kv_heads * 4;  // the d128 (not 1-row) path
    const sim::PlannedRuns planned = synthetic_sweep({d128}, device, truth);
    const std::vector<sim::FitParameter> params = sim::default_fit_parameters(planned);
    std::set<std::string> names;
    std::set<double*> fields;
    sim::KernelModel k = truth;
    for (const sim::FitParameter& p : params) {
        CAPTURE(p.name);
        CHECK(names.insert(p.name).second);
        double* f = p.field(k);
        CHECK(fields.insert(f).second);
        CHECK(reinterpret_cast<char*>(f) >= reinterpret_cast<char*>(&k));
        CHECK(reinterpret_cast<char*>(f) < reinterpret_cast<char*>(&k) + sizeof(k));
        CHECK(p.lo > 0.0);
        CHECK(p.lo < p.hi);
    }
    for (const char* n : {"bytes_in_flight_per_sm", "stream_latency_ns", "launch_ns", "cta_setup_ns", "merge_ns", "reduce_launch_ns",
                          "cta_ns_per_kb_by_path.d128"}) {
        CHECK(names.count(n) == 1);
    }
    CHECK(names.count("cta_ns_per_kb_by_path.d64") == 0);  // no run takes that path
    CHECK(names.count("cta_ns_per_kb_by_path.d128_1row") == 0);
    CHECK(names.count("tile_compute_ns") == 0);  // the paper kernel's: leanattn's overlaps its compute
}

TEST_CASE("fit_kernel moves only the fields it is given, and recovers an additive cost exactly") {
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel truth = app::load_kernel("leanattn-h100", device);
    const sim::PlannedRuns planned = random_sweep(203, 6, device, truth);
    sim::KernelModel start = truth;
    start.launch_ns *= 1.5;
    start.segment_ns *= 0.7;  // not fitted below: stays wrong
    const std::vector<sim::FitParameter> all = sim::default_fit_parameters(planned);
    const std::vector<sim::FitParameter> launch = only(planned, "launch_ns");
    REQUIRE(launch.size() == 1);

    const sim::FitReport none = sim::fit_kernel(planned, start, launch, 0);
    CHECK(none.iterations == 0);
    CHECK(none.kernel.launch_ns == Approx(start.launch_ns).epsilon(1e-12));

    start.segment_ns = truth.segment_ns;  // only launch_ns is wrong now
    sim::FitReport fit = sim::fit_kernel(planned, start, launch, 20);
    CHECK(fit.iterations >= 1);
    // Every launch starts launch_ns after the step: the makespan is linear in it, so the fit lands on it.
    CHECK(fit.kernel.launch_ns == Approx(truth.launch_ns).epsilon(1e-3));
    CHECK(fit.rms_log_error < 1e-3);
    sim::KernelModel expected = start;
    expected.launch_ns = fit.kernel.launch_ns;
    for (const sim::FitParameter& p : all) {
        if (p.name == "launch_ns") continue;
        CAPTURE(p.name);
        CHECK(*p.field(fit.kernel) == *p.field(expected));
    }
    CHECK(fit.kernel.merge == start.merge);
    CHECK(fit.kernel.ctas_per_sm == start.ctas_per_sm);
}

TEST_CASE("fit_kernel's loss: Cauchy's (the default) lets one outlier pull the fit less than plain squares (loss scale 0)") {
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel truth = app::load_kernel("leanattn-h100", device);
    sim::PlannedRuns planned = random_sweep(211, 8, device, truth);
    planned.runs.front().measured_us *= 2.0;  // a run the model cannot explain
    const std::vector<sim::FitParameter> launch = only(planned, "launch_ns");
    REQUIRE(launch.size() == 1);
    const double robust = sim::fit_kernel(planned, truth, launch, 40, {}).kernel.launch_ns;
    const double squares = sim::fit_kernel(planned, truth, launch, 40, {}, 0.0).kernel.launch_ns;
    // The outlier asks for a longer launch: both move up, squares further.
    CHECK(robust >= truth.launch_ns);
    CHECK(squares > robust * 1.05);
    CHECK(std::abs(robust / truth.launch_ns - 1.0) < std::abs(squares / truth.launch_ns - 1.0));
    CHECK_THROWS(sim::fit_kernel(planned, truth, launch, 1, {}, -0.1));
}

TEST_CASE("fit_kernel with every default field, started away from the truth, predicts the truth's runs within 2%") {
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel truth = h100_like_kernel();
    REQUIRE_NOTHROW(sim::check_kernel_model(truth));
    // A fixed sweep, not Catch's seed: the fit is a local search on a piecewise-smooth model, and from this
    // far off it stalls short of 2% on some sweeps (about 1 in 6 random sets of 16 problems).
    std::mt19937_64 rng(300);
    std::vector<Problem> problems;
    for (int i = 0; i < 16; ++i) problems.push_back(sweep_problem(rng));
    const sim::PlannedRuns planned = synthetic_sweep(problems, device, truth);
    sim::KernelModel start = truth;
    start.launch_ns *= 1.5;
    start.cta_setup_ns *= 0.7;
    start.stream_latency_ns *= 1.5;
    start.bytes_in_flight_per_sm *= 0.7;
    start.partial_store_ns *= 1.5;
    start.merge_ns *= 0.7;
    start.reduce_launch_ns *= 1.5;
    start.compute_ns_per_kscore *= 0.7;
    const std::vector<sim::FitParameter> params = sim::default_fit_parameters(planned);

    const std::vector<double> before = sim::predict_us(planned, start);
    double worst_before = 0.0;
    for (std::size_t i = 0; i < before.size(); ++i) worst_before = std::max(worst_before, std::abs(before[i] / planned.runs[i].measured_us - 1));
    REQUIRE(worst_before > 0.1);  // the start is well off

    const sim::FitReport fit = sim::fit_kernel(planned, start, params, 30);
    REQUIRE_NOTHROW(sim::check_kernel_model(fit.kernel));
    const std::vector<double> after = sim::predict_us(planned, fit.kernel);
    for (std::size_t i = 0; i < after.size(); ++i) {
        CAPTURE(i, planned.runs[i].label, strategy_name(planned.runs[i].strategy), after[i], planned.runs[i].measured_us);
        CHECK(after[i] == Approx(planned.runs[i].measured_us).epsilon(0.02));
    }
    const sim::ErrorSummary e = sim::summarize_errors(after, planned.runs);
    CHECK(e.runs == planned.runs.size());
    CHECK(e.worst <= 0.02);
    CHECK(fit.rms_log_error < 0.02);
    const sim::FitReport unmoved = sim::fit_kernel(planned, start, params, 0);
    CHECK(fit.rms_log_error < unmoved.rms_log_error);
    // rms_log_error is the plain rms of log(predicted / measured), what its name says (it was the robust loss's)
    double squares = 0.0;
    for (std::size_t i = 0; i < before.size(); ++i) squares += std::pow(std::log(before[i] / planned.runs[i].measured_us), 2);
    CHECK(unmoved.rms_log_error == Approx(std::sqrt(squares / static_cast<double>(before.size()))).epsilon(1e-9));
    CHECK(unmoved.loss < unmoved.rms_log_error);  // the robust loss weighs the largest errors less
    CHECK(unmoved.kernel == start);                // no iteration moves nothing, not even a field at 0
    sim::KernelModel fitted = fit.kernel;
    for (const sim::FitParameter& p : params) {  // the fit stays inside its bounds
        CAPTURE(p.name);
        const double v = *p.field(fitted);
        CHECK(v >= p.lo * (1 - 1e-9));
        CHECK(v <= p.hi * (1 + 1e-9));
    }
}

TEST_CASE("summarize_errors: median, 95th percentile and worst of |predicted - measured| / measured, signed median, and a mask") {
    // Relative errors -0.5, -0.4, …, +0.9 (15 runs): |e| sorted is 0, .1, .1, .2, .2, …
    std::vector<sim::MeasuredRun> runs;
    std::vector<double> predicted;
    for (int i = 0; i < 15; ++i) {
        runs.push_back(measured(Strategy::stream_k, 200.0));
        predicted.push_back(200.0 * (1.0 + (i - 5) / 10.0));
    }
    const sim::ErrorSummary s = sim::summarize_errors(predicted, runs);
    CHECK(s.runs == 15);
    // |e| sorted: 0, .1, .1, .2, .2, .3, .3, .4, .4, .5, .5, .6, .7, .8, .9; median index round(0.5 · 14) = 7,
    // 95th percentile index round(0.95 · 14) = 13.
    CHECK(s.median == Approx(0.4));
    CHECK(s.p95 == Approx(0.8));
    CHECK(s.worst == Approx(0.9));
    CHECK(s.median_signed == Approx(0.2));  // signed, sorted: -.5 … +.9; index 7 is +0.2
    // Only the first five (errors -0.5 … -0.1): pessimism and optimism differ in sign.
    std::vector<bool> first_five(15, false);
    std::fill(first_five.begin(), first_five.begin() + 5, true);
    const sim::ErrorSummary m = sim::summarize_errors(predicted, runs, first_five);
    CHECK(m.runs == 5);
    CHECK(m.median == Approx(0.3));
    CHECK(m.worst == Approx(0.5));
    CHECK(m.median_signed == Approx(-0.3));
    // One run; none.
    CHECK(sim::summarize_errors({110.0}, {measured(Strategy::no_split, 100.0)}).median == Approx(0.1));
    const sim::ErrorSummary empty = sim::summarize_errors(predicted, runs, std::vector<bool>(15, false));
    CHECK(empty.runs == 0);
    CHECK(empty.worst == 0.0);
}

TEST_CASE("fastest_run: the fastest prediction, and within 0.1% the simpler strategy, whatever the order") {
    const std::vector<sim::MeasuredRun> runs = {measured(Strategy::stream_k, 1), measured(Strategy::fixed_split, 1), measured(Strategy::no_split, 1)};
    CHECK(sim::fastest_run({50.0, 50.0, 50.0}, runs, 0, 3) == 2);  // equal: no-split
    CHECK(sim::fastest_run({50.0, 50.0, 60.0}, runs, 0, 3) == 1);  // equal: fixed-split before stream-k
    CHECK(sim::fastest_run({50.0, 50.02, 50.04}, runs, 0, 3) == 2);  // within 0.1%: no-split
    CHECK(sim::fastest_run({50.0, 51.0, 52.0}, runs, 0, 3) == 0);  // 2% apart: the fastest
    CHECK(sim::fastest_run({52.0, 50.0, 51.0}, runs, 0, 3) == 1);
    CHECK(sim::fastest_run({52.0, 51.0, 50.0}, runs, 0, 3) == 2);
    const std::vector<sim::MeasuredRun> reversed = {measured(Strategy::no_split, 1), measured(Strategy::fixed_split, 1), measured(Strategy::stream_k, 1)};
    CHECK(sim::fastest_run({50.0, 50.0, 50.0}, reversed, 0, 3) == 0);
    CHECK(sim::fastest_run({50.04, 50.02, 50.0}, reversed, 0, 3) == 0);
    CHECK(sim::fastest_run({52.0, 51.0, 50.0}, reversed, 0, 3) == 2);
    // A range inside a longer list: indices are the list's.
    const std::vector<sim::MeasuredRun> two = {measured(Strategy::stream_k, 1, "a"), measured(Strategy::no_split, 1, "a"), measured(Strategy::stream_k, 1, "b"),
                                               measured(Strategy::no_split, 1, "b")};
    CHECK(sim::fastest_run({1.0, 2.0, 30.0, 30.0}, two, 2, 4) == 3);
    CHECK(sim::fastest_run({1.0, 2.0, 29.0, 30.0}, two, 2, 4) == 2);
}

// auto_speed.cpp — host time of `--strategy auto` (sim::choose_strategy) per problem, and where it goes.
//
// Reads a measured sweep (`leanattn cuda bench --shapes` JSON lines, e.g. the calibration's held-out one),
// and for each problem times, over 20 rounds through all the problems (its median; auto meets a problem once, so
// the problems take turns), and, for the choice, over 20 calls in a row too: planning each default strategy
// (make_schedule), simulating each plan under the kernel model (simulate(), and the makespan alone that the
// choice uses, sim/makespan.hpp, checked equal), and the whole choice, weighed both ways (sim::Weighing: bounded,
// what auto runs, and every plan played in full, the reference), checked to agree, and bounded with the tile rows left
// to auto (the sweep records each run's, 16 by default); then the choice for a cache's
// capacity (sim::PlannedLengths, the library's DecodePlan; 5 repetitions; bounded checked against every plan played there
// too); and, first, the time to load the device and kernel files (parsed the first time, then again while their
// text is the same). One core, Release build.
//   bench_auto_speed data/kernels/leanattn-h100.json h100-sxm bench/results/raw/…/heldout-1.jsonl
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "data_catalog.hpp"
#include "measured_runs.hpp"
#include "sim/makespan.hpp"
#include "sim/simulation.hpp"
#include "sim/strategy_choice.hpp"

using namespace leanattn;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

template <typename F>
double time_us(F&& f, int reps = 20) {
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
}

// Each problem's median time of f(problem index) over `reps` rounds, a round calling f once for every problem in turn:
// auto meets each problem once, and timing one problem 20 times in a row trains the branch predictor on its exact
// path (auto's choice: 55.5-57.7 us at the median so, 85.2-86.2 taking turns, on a 2-core AMD EPYC;
// bench/results/raw/gpu-2026-11-27-auto-host-interleaved).
template <typename F>
std::vector<double> interleaved_us(std::size_t problems, F&& f, int reps = 20) {
    std::vector<std::vector<double>> t(problems);
    for (int i = 0; i < reps; ++i) {
        for (std::size_t p = 0; p < problems; ++p) {
            const auto t0 = std::chrono::steady_clock::now();
            f(p);
            t[p].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        }
    }
    std::vector<double> out;
    for (std::vector<double>& v : t) out.push_back(median(std::move(v)));
    return out;
}

void print_spread(const char* what, std::vector<double> us) {
    std::sort(us.begin(), us.end());
    std::printf("%s: median %.2f us, 90th percentile %.2f, worst %.2f\n", what, median(us), us[us.size() * 9 / 10], us.back());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_auto_speed KERNEL DEVICE MEASURED.jsonl\n");
        return 2;
    }
    // What a command pays first, and a library plan made with auto each time: reading and checking the two data files,
    // parsed the first time (one sample), then found parsed while their text is the same (data_catalog.hpp).
    const auto t0 = std::chrono::steady_clock::now();
    const DeviceSpec device = app::load_device(argv[2]);
    const sim::KernelModel kernel = app::load_kernel(argv[1], device);
    const double first_load_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    const double load_us = time_us([&] { (void)app::load_kernel(argv[1], app::load_device(argv[2])); }, 200);
    const DeviceSpec planned = sim::device_for_kernel(device, kernel);
    const app::MeasuredSweep sweep = app::read_measured({argv[3]});
    const sim::MakespanModel model(kernel, planned);  // as choose_strategy keeps one: the memory law tabulated once
    std::vector<const sim::MeasuredRun*> runs;  // each problem once: the sweep records three strategies per problem
    for (std::size_t i = 0; i < sweep.runs.size(); i += 3) runs.push_back(&sweep.runs[i]);
    const std::size_t n = runs.size();
    std::vector<double> plan_us[3], estimate_us[3], makespan_us[3];
    double worst_disagreement = 0.0;
    int agree = 0, candidates = 0, simulated = 0, capacity_agree = 0;
    const Strategy strategies[3] = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};
    for (int s = 0; s < 3; ++s) {
        PlanOptions o;
        o.strategy = strategies[s];
        sim::SimOptions so;
        so.kernel = &kernel;
        std::vector<Schedule> plans;
        for (const sim::MeasuredRun* r : runs) plans.push_back(make_schedule(r->problem, planned, o));
        plan_us[s] = interleaved_us(n, [&](std::size_t p) { (void)make_schedule(runs[p]->problem, planned, o); });
        estimate_us[s] = interleaved_us(n, [&](std::size_t p) {
            so.bytes_per_element = runs[p]->bytes_per_element;
            (void)sim::simulate(plans[p], so);
        });
        makespan_us[s] = interleaved_us(n, [&](std::size_t p) { (void)model.makespan_ns(plans[p], runs[p]->bytes_per_element); });
        for (std::size_t p = 0; p < n; ++p) {
            so.bytes_per_element = runs[p]->bytes_per_element;
            const double full = sim::simulate(plans[p], so).makespan_ns, fast = model.makespan_ns(plans[p], runs[p]->bytes_per_element);
            worst_disagreement = std::max(worst_disagreement, std::abs(fast / full - 1.0));
        }
    }
    const auto choose = [&](const Problem& problem, std::size_t p, sim::Weighing w, sim::PlannedLengths lengths = sim::PlannedLengths::the_problems) {
        return sim::choose_strategy(problem, device, kernel, runs[p]->bytes_per_element, PlanOptions{}, true, w, lengths);
    };
    const std::vector<double> bounded_us = interleaved_us(n, [&](std::size_t p) { (void)choose(runs[p]->problem, p, sim::Weighing::bounded); });
    // The same problem 20 times in a row, as this benchmark timed it until 2026-11-27: what a trained branch predictor hides.
    std::vector<double> repeated_us;
    for (std::size_t p = 0; p < n; ++p) repeated_us.push_back(time_us([&] { (void)choose(runs[p]->problem, p, sim::Weighing::bounded); }));
    // The sweep records the tile rows each run had (16 by default); a user who leaves them lets auto weigh 8-row
    // tiles (KV heads of 9-16 rows) and larger ones (more than 16) too.
    const std::vector<double> free_tiles_us = interleaved_us(n, [&](std::size_t p) {
        Problem free_tiles = runs[p]->problem;
        free_tiles.tile_rows = 0;
        (void)choose(free_tiles, p, sim::Weighing::bounded);
    });
    const std::vector<double> every_plan_us = interleaved_us(n, [&](std::size_t p) { (void)choose(runs[p]->problem, p, sim::Weighing::every_plan); });
    // The library's DecodePlan: the lengths as a cache's capacity.
    const std::vector<double> capacity_us =
        interleaved_us(n, [&](std::size_t p) { (void)choose(runs[p]->problem, p, sim::Weighing::bounded, sim::PlannedLengths::up_to_the_problems); }, 5);
    const auto same = [](const sim::StrategyChoice& a, const sim::StrategyChoice& b) {
        return a.options.strategy == b.options.strategy && a.options.splits == b.options.splits && a.options.grid == b.options.grid && a.predicted_us == b.predicted_us;
    };
    for (std::size_t p = 0; p < n; ++p) {
        const Problem& problem = runs[p]->problem;
        const sim::PlannedLengths capacity = sim::PlannedLengths::up_to_the_problems;
        capacity_agree += same(choose(problem, p, sim::Weighing::bounded, capacity), choose(problem, p, sim::Weighing::every_plan, capacity)) ? 1 : 0;
        const sim::StrategyChoice fast = choose(problem, p, sim::Weighing::bounded);
        agree += same(fast, choose(problem, p, sim::Weighing::every_plan)) ? 1 : 0;
        candidates += static_cast<int>(fast.candidates.size());
        for (const sim::StrategyCandidate& c : fast.candidates) simulated += c.simulated ? 1 : 0;
    }
    std::printf("%zu problems of %s on %s under %s; median over problems of each one's median of 20 rounds through all of them, us\n", n, argv[3],
                argv[2], argv[1]);
    std::printf("loading the device and kernel files: %.1f us the first time in the process, %.1f again (median of 200)\n", first_load_us, load_us);
    std::printf("%-12s %10s %12s %12s\n", "strategy", "plan_us", "simulate_us", "makespan_us");
    for (int s = 0; s < 3; ++s)
        std::printf("%-12s %10.2f %12.2f %12.2f\n", std::string(strategy_name(strategies[s])).c_str(), median(plan_us[s]), median(estimate_us[s]), median(makespan_us[s]));
    std::printf("MakespanModel::makespan_ns against simulate(): worst relative difference %.3g\n", worst_disagreement);
    print_spread("choose_strategy, bounded (what auto runs)", bounded_us);
    print_spread("the same, each problem 20 times in a row (a trained branch predictor)", repeated_us);
    print_spread("the same with the tile rows left to auto", free_tiles_us);
    print_spread("choose_strategy, every plan played in full", every_plan_us);
    print_spread("choose_strategy for a capacity (each plan at it and at two draws of ragged lengths)", capacity_us);
    std::printf("the two agree (plan and predicted time) on %d of %zu problems; %d of %d candidates played to their end; for a capacity on %d\n", agree, n,
                simulated, candidates, capacity_agree);
    return 0;
}

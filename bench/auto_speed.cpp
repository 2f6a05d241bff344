// auto_speed.cpp — host time of `--strategy auto` (sim::choose_strategy) per problem, and where it goes.
//
// Reads a measured sweep (`leanattn cuda bench --shapes` JSON lines, e.g. the calibration's held-out one),
// and for each problem times, over 20 repetitions (median): planning each default strategy
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
    std::vector<double> plan_us[3], estimate_us[3], makespan_us[3], bounded_us, free_tiles_us, every_plan_us, capacity_us;
    double worst_disagreement = 0.0;
    int agree = 0, candidates = 0, simulated = 0, capacity_agree = 0;
    const Strategy strategies[3] = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};
    for (std::size_t i = 0; i < sweep.runs.size(); i += 3) {
        const sim::MeasuredRun& r = sweep.runs[i];
        for (int s = 0; s < 3; ++s) {
            PlanOptions o;
            o.strategy = strategies[s];
            plan_us[s].push_back(time_us([&] { (void)make_schedule(r.problem, planned, o); }));
            const Schedule plan = make_schedule(r.problem, planned, o);
            sim::SimOptions so;
            so.bytes_per_element = r.bytes_per_element;
            so.kernel = &kernel;
            estimate_us[s].push_back(time_us([&] { (void)sim::simulate(plan, so); }));
            makespan_us[s].push_back(time_us([&] { (void)model.makespan_ns(plan, r.bytes_per_element); }));
            const double full = sim::simulate(plan, so).makespan_ns, fast = model.makespan_ns(plan, r.bytes_per_element);
            worst_disagreement = std::max(worst_disagreement, std::abs(fast / full - 1.0));
        }
        const auto choose = [&](sim::Weighing w) { return sim::choose_strategy(r.problem, device, kernel, r.bytes_per_element, PlanOptions{}, true, w); };
        bounded_us.push_back(time_us([&] { (void)choose(sim::Weighing::bounded); }));
        // The sweep records the tile rows each run had (16 by default); a user who leaves them lets auto weigh 8-row
        // tiles (KV heads of 9-16 rows) and larger ones (more than 16) too.
        Problem free_tiles = r.problem;
        free_tiles.tile_rows = 0;
        free_tiles_us.push_back(time_us([&] {
            (void)sim::choose_strategy(free_tiles, device, kernel, r.bytes_per_element, PlanOptions{}, true, sim::Weighing::bounded);
        }));
        every_plan_us.push_back(time_us([&] { (void)choose(sim::Weighing::every_plan); }));
        capacity_us.push_back(time_us([&] {  // the library's DecodePlan: the lengths as a cache's capacity
            (void)sim::choose_strategy(r.problem, device, kernel, r.bytes_per_element, PlanOptions{}, true, sim::Weighing::bounded,
                                       sim::PlannedLengths::up_to_the_problems);
        }, 5));
        const auto for_capacity = [&](sim::Weighing w) {
            return sim::choose_strategy(r.problem, device, kernel, r.bytes_per_element, PlanOptions{}, true, w, sim::PlannedLengths::up_to_the_problems);
        };
        const sim::StrategyChoice capacity_fast = for_capacity(sim::Weighing::bounded), capacity_full = for_capacity(sim::Weighing::every_plan);
        capacity_agree += capacity_fast.options.strategy == capacity_full.options.strategy && capacity_fast.options.splits == capacity_full.options.splits &&
                                  capacity_fast.options.grid == capacity_full.options.grid && capacity_fast.predicted_us == capacity_full.predicted_us
                              ? 1
                              : 0;
        const sim::StrategyChoice fast = choose(sim::Weighing::bounded), full = choose(sim::Weighing::every_plan);
        agree += fast.options.strategy == full.options.strategy && fast.options.splits == full.options.splits && fast.options.grid == full.options.grid &&
                         fast.predicted_us == full.predicted_us
                     ? 1
                     : 0;
        candidates += static_cast<int>(fast.candidates.size());
        for (const sim::StrategyCandidate& c : fast.candidates) simulated += c.simulated ? 1 : 0;
    }
    std::printf("%zu problems of %s on %s under %s; median over problems of the median of 20 repetitions, us\n", bounded_us.size(), argv[3], argv[2], argv[1]);
    std::printf("loading the device and kernel files: %.1f us the first time in the process, %.1f again (median of 200)\n", first_load_us, load_us);
    std::printf("%-12s %10s %12s %12s\n", "strategy", "plan_us", "simulate_us", "makespan_us");
    for (int s = 0; s < 3; ++s)
        std::printf("%-12s %10.2f %12.2f %12.2f\n", std::string(strategy_name(strategies[s])).c_str(), median(plan_us[s]), median(estimate_us[s]), median(makespan_us[s]));
    std::printf("MakespanModel::makespan_ns against simulate(): worst relative difference %.3g\n", worst_disagreement);
    print_spread("choose_strategy, bounded (what auto runs)", bounded_us);
    print_spread("the same with the tile rows left to auto", free_tiles_us);
    print_spread("choose_strategy, every plan played in full", every_plan_us);
    print_spread("choose_strategy for a capacity (each plan at it and at two draws of ragged lengths)", capacity_us);
    std::printf("the two agree (plan and predicted time) on %d of %zu problems; %d of %d candidates played to their end; for a capacity on %d\n", agree,
                bounded_us.size(), simulated, candidates, capacity_agree);
    return 0;
}

// auto_choices.cpp — `--strategy auto`'s choice for every problem of measured sweeps, four ways: the problem's tile rows
// as recorded or left to auto, weighed for the problem's lengths or for a cache's capacity. One line per problem and
// way; run it on two builds and diff the outputs to show that a change to the rule (or a faster weighing) moves no
// choice and no predicted time.
//   bench_auto_choices data/kernels/leanattn-h100.json h100-sxm SWEEP.jsonl [SWEEP.jsonl …] > choices.txt
#include <cstdio>
#include <set>
#include <string>

#include "data_catalog.hpp"
#include "guarded_main.hpp"
#include "measured_runs.hpp"
#include "sim/strategy_choice.hpp"

using namespace leanattn;

namespace {

int run(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_auto_choices KERNEL DEVICE MEASURED.jsonl...\n");
        return 2;
    }
    const DeviceSpec device = app::load_device(argv[2]);
    const sim::KernelModel kernel = app::load_kernel(argv[1], device);
    for (int f = 3; f < argc; ++f) {
        const app::MeasuredSweep sweep = app::read_measured({argv[f]});
        std::set<std::string> seen;
        for (const sim::MeasuredRun& run : sweep.runs) {
            if (!seen.insert(run.label).second) continue;
            for (const bool tiles_left : {false, true}) {
                Problem problem = run.problem;
                if (tiles_left) problem.tile_rows = 0;
                for (const sim::PlannedLengths lengths : {sim::PlannedLengths::the_problems, sim::PlannedLengths::up_to_the_problems}) {
                    const sim::StrategyChoice c = sim::choose_strategy(problem, device, kernel, run.bytes_per_element, PlanOptions{}, true,
                                                                       sim::Weighing::bounded, lengths);
                    std::printf("%s | tiles %s, %s: %s splits %lld grid %lld tile_rows %lld predicted %.17g us\n", run.label.c_str(),
                                tiles_left ? "left" : "given", lengths == sim::PlannedLengths::the_problems ? "lengths" : "capacity",
                                std::string(strategy_name(c.options.strategy)).c_str(), static_cast<long long>(c.splits),
                                static_cast<long long>(c.options.grid), static_cast<long long>(c.tile_rows), c.predicted_us);
                }
            }
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return leanattn::bench::guarded_main("bench_auto_choices", run, argc, argv); }

// auto_candidates.cpp — every plan `--strategy auto` weighs for each problem of a measured sweep, each played in full
// (sim::Weighing::every_plan), as JSON lines: what bench/gpu/large_tiles_report.py's `margins` re-weighs under other
// margins for a larger tile, against the times a sweep measured.
//
// Reads `leanattn cuda bench --shapes` JSON lines (e.g. the large-tile sweep); each distinct problem once, its tile rows
// left to auto (a line's --tile-rows dropped). Prints, per problem:
//   {"flags": the line's flags without --tile-rows, "candidates": [{"strategy", "splits", "grid", "tile_rows" (0: 16),
//    "default_plan" (no splits or grid of its own), "predicted_us", "margin"}, …], "choice": {"strategy", "tile_rows", "predicted_us"}}
//   bench_auto_candidates data/kernels/leanattn-h100.json h100-sxm bench/results/raw/gpu-2026-11-27-lag-auto/sweep-device.jsonl
#include <cstdio>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "data_catalog.hpp"
#include "guarded_main.hpp"
#include "measured_runs.hpp"
#include "sim/strategy_choice.hpp"

using namespace leanattn;

namespace {

int run(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_auto_candidates KERNEL DEVICE MEASURED.jsonl\n");
        return 2;
    }
    const DeviceSpec device = app::load_device(argv[2]);
    const sim::KernelModel kernel = app::load_kernel(argv[1], device);
    const app::MeasuredSweep sweep = app::read_measured({argv[3]});
    const std::regex tile_rows_flag(" --tile-rows [0-9]+");
    std::set<std::string> seen;
    for (const sim::MeasuredRun& run : sweep.runs) {
        const std::string flags = std::regex_replace(run.label, tile_rows_flag, "");
        if (!seen.insert(flags).second) continue;
        Problem problem = run.problem;
        problem.tile_rows = 0;  // auto's to choose
        const sim::StrategyChoice choice =
            sim::choose_strategy(problem, device, kernel, run.bytes_per_element, PlanOptions{}, true, sim::Weighing::every_plan);
        nlohmann::ordered_json line;
        line["flags"] = flags;
        line["candidates"] = nlohmann::ordered_json::array();
        for (const sim::StrategyCandidate& c : choice.candidates) {
            line["candidates"].push_back({{"strategy", strategy_name(c.options.strategy)},
                                          {"splits", c.splits},
                                          {"grid", c.grid},
                                          {"tile_rows", c.tile_rows},
                                          {"default_plan", c.options.splits == 0 && c.options.grid == 0},
                                          {"predicted_us", c.predicted_us},
                                          {"margin", c.margin}});
        }
        line["choice"] = {{"strategy", strategy_name(choice.options.strategy)}, {"tile_rows", choice.tile_rows}, {"predicted_us", choice.predicted_us}};
        std::printf("%s\n", line.dump().c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return leanattn::bench::guarded_main("bench_auto_candidates", run, argc, argv); }

// ragged_predictions.cpp — the simulator's predictions of plans made for a capacity and run at ragged live lengths,
// against what bench/gpu/ragged_live.py measured: each run's plan remade at its capacity on the H100 (one CTA per SM,
// as the GPU kernel runs), its step at the run's live lengths derived (core's live_schedule) and played under KERNEL.
//   --peer host    (default) leanattn/stream-k, /no-split and /fixed-split: host-lengths steps; for leanattn-h100-host
//   --peer device  leanattn/auto-device against the strategy auto planned (its default parameters): steps of run()
// Prints each run's predicted and measured time, then the median signed error per strategy, and apart for the plans the
// kernel reads with half its warps (what narrow_in_flight_fraction was fitted on).
//   xz -dc bench/results/raw/gpu-2026-11-27-auto-default/ragged-live-first/ragged.jsonl > /tmp/ragged.jsonl  (if .xz)
//   bench_ragged_predictions data/kernels/leanattn-h100-host.json /tmp/ragged.jsonl
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/live_plan.hpp"
#include "data_catalog.hpp"
#include "input_file.hpp"
#include "sim/makespan.hpp"

using namespace leanattn;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

Problem problem_of(const nlohmann::json& run) {
    std::ifstream file(app::data_dir() / "models" / (run["model"].get<std::string>() + ".json"));
    const nlohmann::json model = nlohmann::json::parse(file);
    Problem p;
    p.batch = run["batch"];
    p.q_heads = model["q_heads"];
    p.kv_heads = model["kv_heads"];
    p.head_dim = model["head_dim"];
    p.q_len = run.value("q_len", 1);
    p.tile = p.head_dim <= 64 ? 256 : 128;
    p.ctx.assign(static_cast<std::size_t>(p.batch), run["capacity"].get<std::int64_t>());
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--peer")) {
        std::fprintf(stderr, "usage: bench_ragged_predictions KERNEL RAGGED.jsonl [--peer host|device]\n");
        return 2;
    }
    const bool device_peer = argc == 5 && std::string(argv[4]) == "device";
    DeviceSpec h100 = app::load_device("h100-sxm");
    h100.ctas_per_sm = 1;
    const sim::KernelModel kernel = app::load_kernel(argv[1], h100);
    const std::unique_ptr<std::istream> in = app::open_input_file(argv[2], "RAGGED.jsonl");  // FILE or FILE.xz
    std::map<std::string, double> errors_by_strategy_median;
    std::map<std::string, std::vector<double>> errors;
    std::vector<double> narrow;
    for (std::string line; std::getline(*in, line);) {
        const nlohmann::json run = nlohmann::json::parse(line);
        if (run.value("kind", "") != "ragged" || !run.contains("median_us")) continue;
        const std::string peer = run["peer"];
        std::string strategy;
        if (device_peer && peer == "leanattn/auto-device" && run.contains("plan")) strategy = run["plan"]["strategy"];
        else if (!device_peer && (peer == "leanattn/stream-k" || peer == "leanattn/no-split" || peer == "leanattn/fixed-split")) strategy = peer.substr(9);
        else continue;
        PlanOptions o;
        o.strategy = *parse_strategy(strategy);
        const Schedule step = live_schedule(make_schedule(problem_of(run), h100, o), run["live"].get<std::vector<std::int64_t>>());
        const double predicted = sim::simulated_makespan_ns(step, kernel, 2) / 1e3, measured = run["median_us"];
        const double error = predicted / measured - 1.0;
        errors[strategy].push_back(error);
        if (step.narrow_streams) narrow.push_back(error);
        std::printf("%-52s %-11s%s predicted %7.1f us  measured %7.1f  %+6.1f%%\n", run["shape"].get<std::string>().c_str(), strategy.c_str(),
                    step.narrow_streams ? " (narrow)" : "         ", predicted, measured, 100.0 * error);
    }
    for (const auto& [strategy, e] : errors) std::printf("%s: median error %+.1f%% over %zu runs\n", strategy.c_str(), 100.0 * median(e), e.size());
    std::printf("read with half the warps: median error %+.1f%% over %zu runs\n", 100.0 * median(narrow), narrow.size());
    return 0;
}

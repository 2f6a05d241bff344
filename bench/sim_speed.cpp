// sim_speed.cpp — how fast the simulator runs, against the two targets below. One core, Release build.
//
//  1. The largest case the paper runs: 8×A100 (864 SMs, 2 CTAs/SM, data/devices/a100-80gb-x8.json),
//     batch 4 × 256 heads = 1,024 output tiles, 1M-token contexts, head-dim 64: 4,194,304 LeanTiles.
//     Target: all three strategies planned and simulated in < 100 ms.
//  2. A sweep of small configurations on an H100 (batch 1–8, heads 8–64, ctx 1k–32k, ragged or not),
//     three strategies each, through the same code `leanattn sweep` runs. Target: ≥ 1,000 per second.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "data_catalog.hpp"
#include "problem_options.hpp"
#include "sim/simulation.hpp"

using namespace leanattn;

namespace {

double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main() {
    // 1. The big case.
    app::ResolvedProblem big;
    big.device = app::load_device("a100-80gb-x8");
    big.problem.batch = 4;
    big.problem.q_heads = big.problem.kv_heads = 256;
    big.problem.head_dim = 64;
    big.problem.tile = 256;
    big.problem.ctx.assign(4, std::int64_t{1} << 20);
    big.strategies = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};
    std::printf("1. %s: 1,024 output tiles x 1M tokens (4,194,304 LeanTiles), 864 SMs x 2 CTAs/SM\n", big.device.name.c_str());
    std::printf("%-12s %8s %14s %14s\n", "strategy", "grid", "median_ms", "makespan_us");
    std::vector<double> all;
    for (Strategy s : big.strategies) {
        app::ResolvedProblem one = big;
        one.strategies = {s};
        std::vector<double> times;
        double makespan = 0.0;
        std::int64_t grid = 0;
        for (int i = 0; i < 21; ++i) {
            const double t0 = now_ms();
            const std::vector<sim::SimResult> r = sim::simulate_strategies(one.problem, one.device, one.plan, one.strategies);
            times.push_back(now_ms() - t0);
            makespan = r.front().makespan_ns / 1e3, grid = r.front().grid;
        }
        std::printf("%-12s %8lld %14.2f %14.1f\n", std::string(strategy_name(s)).c_str(), static_cast<long long>(grid), median(times), makespan);
    }
    for (int i = 0; i < 21; ++i) {
        const double t0 = now_ms();
        sim::simulate_strategies(big.problem, big.device, big.plan, big.strategies);
        all.push_back(now_ms() - t0);
    }
    std::printf("%-12s %8s %14.2f   (target < 100 ms)\n", "all three", "", median(all));
    {
        sim::SimOptions timelines;
        timelines.record_timeline = true;
        const double t0 = now_ms();
        sim::simulate_strategies(big.problem, big.device, big.plan, big.strategies, timelines);
        std::printf("%-12s %8s %14.2f   (with per-SM timelines recorded, as for --format svg)\n", "all, svg", "", now_ms() - t0);
    }

    // 2. Small configurations.
    app::ResolvedProblem small;
    small.device = app::load_device("h100-sxm");
    small.strategies = big.strategies;
    std::mt19937_64 rng(42);
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    std::vector<Problem> problems;
    for (int i = 0; i < 3000; ++i) {
        Problem p;
        p.batch = pick(1, 8);
        p.q_heads = p.kv_heads = 8 * pick(1, 8);
        p.head_dim = pick(0, 1) ? 64 : 128;
        p.tile = default_tile(p.head_dim);
        const bool ragged = pick(0, 1) == 1;
        const std::int64_t shared = 1024 * pick(1, 32);
        for (std::int64_t b = 0; b < p.batch; ++b) p.ctx.push_back(ragged ? 1024 * pick(1, 32) : shared);
        problems.push_back(p);
    }
    const double t0 = now_ms();
    double sink = 0.0;
    for (const Problem& p : problems) {
        small.problem = p;
        for (const sim::SimResult& r : sim::simulate_strategies(small.problem, small.device, small.plan, small.strategies)) sink += r.makespan_ns;
    }
    const double ms = now_ms() - t0;
    std::printf("\n2. %zu small configurations on %s (batch 1-8, heads 8-64, d 64|128, ctx 1k-32k, half ragged), 3 strategies each\n",
                problems.size(), small.device.name.c_str());
    std::printf("   %.1f ms in all: %.0f configurations per second (target >= 1,000)   [checksum %.3g]\n", ms, 1000.0 * static_cast<double>(problems.size()) / ms, sink);
    return 0;
}

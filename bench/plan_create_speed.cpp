// plan_create_speed.cpp — host time of the C ABI's leanattn_plan_create with strategy "auto", as an engine (or
// Python's DecodePlan) pays it once per cache shape: the device and kernel files read, every plan weighed at the
// capacity and two draws of live lengths below it (sim::PlannedLengths::up_to_the_problems), the chosen plan kept.
//
// Reads a measured sweep (`leanattn cuda bench --shapes` JSON lines, e.g. the calibration's held-out one); each
// distinct problem, its tile rows left to auto, is planned as a CPU plan on DEVICE (a data/devices name; a CPU plan with
// auto is weighed and made at the kernel model's one CTA per SM, as the GPU kernel runs and a CUDA plan is weighed), in
// 10 rounds through all the problems, each problem's median taken (auto meets a problem once).
// Then the same with no device named (h100-sxm's file, as DecodePlan's default).
//   bench_plan_create_speed h100-sxm bench/results/raw/…/heldout-1.jsonl
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "capi/leanattn.h"
#include "guarded_main.hpp"
#include "measured_runs.hpp"

using namespace leanattn;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int run(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: bench_plan_create_speed DEVICE MEASURED.jsonl\n");
        return 2;
    }
    const app::MeasuredSweep sweep = app::read_measured({argv[2]});
    std::vector<Problem> problems;
    std::set<std::string> seen;
    for (const sim::MeasuredRun& r : sweep.runs) {
        if (!seen.insert(r.label).second) continue;
        problems.push_back(r.problem);
        problems.back().tile_rows = 0;  // auto's to choose
    }
    std::vector<leanattn_problem> shapes;
    for (const Problem& p : problems) {
        shapes.push_back({p.batch, p.q_heads, p.kv_heads, p.head_dim, p.q_len, p.tile, p.ctx.data(), 0});
    }
    // Each problem's median over the rounds, sorted; `device` NULL: none named (DecodePlan's default).
    const auto time_plans = [&](const char* device) {
        leanattn_plan_options options{};
        options.strategy = "auto";
        options.device = device;
        constexpr int rounds = 10;
        std::vector<std::vector<double>> us(shapes.size());
        for (int round = 0; round < rounds; ++round) {
            for (std::size_t i = 0; i < shapes.size(); ++i) {
                leanattn_plan* plan = nullptr;
                const auto t0 = std::chrono::steady_clock::now();
                const leanattn_status status = leanattn_plan_create(&shapes[i], LEANATTN_FP16, LEANATTN_DEVICE_CPU, &options, &plan);
                us[i].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
                if (status != LEANATTN_OK) throw std::runtime_error(leanattn_last_error());
                leanattn_plan_destroy(plan);
            }
        }
        std::vector<double> each;
        for (const std::vector<double>& u : us) each.push_back(median(u));
        std::sort(each.begin(), each.end());
        std::printf("leanattn_plan_create with auto, %zu problems of %s, %s, %d rounds taking turns: median %.1f us, 90th percentile %.1f, "
                    "worst %.1f\n",
                    each.size(), argv[2], device != nullptr ? ("on " + std::string(device)).c_str() : "no device named", rounds, median(each),
                    each[each.size() * 9 / 10], each.back());
    };
    time_plans(argv[1]);
    time_plans(nullptr);
    return 0;
}

}  // namespace

int main(int argc, char** argv) { return leanattn::bench::guarded_main("bench_plan_create_speed", run, argc, argv); }

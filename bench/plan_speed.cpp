// plan_speed.cpp — how fast a plan is made, spelled out and validated.
//
// The largest case the paper runs: 8×A100 (864 SMs, 2 CTAs/SM), batch 4 × 256 heads = 1,024 output
// tiles, 1M-token contexts, head-dim 64 (LeanTile 256): 4,194,304 LeanTiles on 1,728 CTAs.
// Prints the median of many repetitions of each step, in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"
#include "core/validate.hpp"

using namespace leanattn;

namespace {

template <typename F>
double median_us(int repeats, F&& f) {
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main() {
    Problem p;
    p.batch = 4;
    p.q_heads = p.kv_heads = 256;
    p.head_dim = 64;
    p.tile = 256;
    p.ctx.assign(4, 1 << 20);
    DeviceSpec d;  // data/devices/a100-80gb-x8.json: the aligned rule's cost model reads the timing
    d.name = "a100-80gb-x8";
    d.sms = 864;
    d.ctas_per_sm = 2;
    DeviceTiming& timing = d.timing;
    timing.hbm_bandwidth_gb_per_s = 16312.0, timing.hbm_partitions = 8, timing.mem_latency_ns = 350.0, timing.tile_compute_ns = 60.0;
    timing.cta_startup_ns = 800.0, timing.partial_store_ns = 500.0, timing.output_store_ns = 200.0;
    timing.flag_wait_ns = 250.0, timing.reduce_per_partial_ns = 350.0;

    std::printf("problem: 1,024 output tiles x 1M tokens (4,194,304 LeanTiles) on 864 SMs x 2 CTAs/SM\n");
    std::printf("%-20s %12s %12s %12s %12s %8s %6s\n", "strategy", "plan_us", "tabulate_us", "validate_us", "total_us", "grid", "snap");
    // stream-k under the aligned rule (the default: its cost model weighs grids and snaps), under the paper's
    // rule (closed forms: what stream-k planning cost before the aligned rule), and the baselines.
    PlanOptions aligned, paper, fixed, none;
    paper.stream_k_rule = StreamKRule::paper;
    fixed.strategy = Strategy::fixed_split;
    none.strategy = Strategy::no_split;
    for (const PlanOptions& options : {aligned, paper, fixed, none}) {
        const Strategy strategy = options.strategy;
        Schedule s = make_schedule(p, d, options);
        ScheduleTable t = tabulate(s);
        std::size_t sink = 0;
        const double plan = median_us(200, [&] { s = make_schedule(p, d, options); });
        const double table = median_us(200, [&] { t = tabulate(s); });
        const double check = median_us(200, [&] { sink += validate_schedule(s, t).size(); check_coresidency(s); });
        const double total = median_us(200, [&] {
            const Schedule s2 = make_schedule(p, d, options);
            check_coresidency(s2);
            sink += validate_schedule(s2, tabulate(s2)).size();
        });
        if (sink != 0) {
            std::printf("validation failed\n");
            return 1;
        }
        const std::string name = std::string(strategy_name(strategy)) +
                                 (strategy == Strategy::stream_k ? " (" + std::string(stream_k_rule_name(s.stream_k_rule)) + ")" : "");
        std::printf("%-20s %12.1f %12.1f %12.1f %12.1f %8lld %6lld\n", name.c_str(), plan, table, check, total, static_cast<long long>(s.grid),
                    static_cast<long long>(s.snap));
    }
    return 0;
}

// plan_speed.cpp — how fast a plan is made, spelled out and validated (issue 2, item 9).
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
    DeviceSpec d;
    d.name = "a100-80gb-x8";
    d.sms = 864;
    d.ctas_per_sm = 2;

    std::printf("problem: 1,024 output tiles x 1M tokens (4,194,304 LeanTiles) on 864 SMs x 2 CTAs/SM\n");
    std::printf("%-12s %12s %12s %12s %12s %8s\n", "strategy", "plan_us", "tabulate_us", "validate_us", "total_us", "grid");
    for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        PlanOptions options;
        options.strategy = strategy;
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
        std::printf("%-12s %12.1f %12.1f %12.1f %12.1f %8lld\n", std::string(strategy_name(strategy)).c_str(), plan, table, check, total,
                    static_cast<long long>(s.grid));
    }
    return 0;
}

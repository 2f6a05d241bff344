// stream_k_rules.cpp — the two stream-k rules against each other and against the baselines, in the simulator,
// over random decode shapes on an H100 (data/devices/h100-sxm.json's timing): uniform and ragged batches, with
// 1 CTA per SM (what the kernel's occupancy query gives) and 2 (what the device file says).
//
// Prints, per setting, how often and by how much stream-k under the aligned rule simulates slower than the
// paper's rule, no-split and fixed-split, and the mean speedup over the paper's rule; then the worst cases.
// Simulated makespans: model predictions, not GPU measurements. Seeded: the same output every run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "sim/simulation.hpp"

using namespace leanattn;

namespace {

std::int64_t log_uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
    std::uniform_real_distribution<double> u(std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi) + 1.0));
    return std::clamp(static_cast<std::int64_t>(std::exp(u(rng))), lo, hi);
}

// Decode shapes as models have them: batch 1-64, 1-32 KV heads in groups of 1, 4 or 8, head-dim 64 or 128 (the
// paper's LeanTile), contexts 256 to 128k; ragged: each request between 64 tokens and the batch's longest.
Problem random_shape(std::mt19937_64& rng, bool ragged) {
    Problem p;
    p.batch = log_uniform(rng, 1, 64);
    p.kv_heads = log_uniform(rng, 1, 32);
    const std::int64_t groups[] = {1, 4, 8};
    p.q_heads = p.kv_heads * groups[rng() % 3];
    p.head_dim = rng() % 2 ? 64 : 128;
    p.tile = default_tile(p.head_dim);
    const std::int64_t longest = log_uniform(rng, 256, 131072);
    for (std::int64_t b = 0; b < p.batch; ++b) p.ctx.push_back(ragged ? log_uniform(rng, 64, longest) : longest);
    return p;
}

double simulate(const Problem& p, const DeviceSpec& d, Strategy strategy, StreamKRule rule) {
    PlanOptions o;
    o.strategy = strategy;
    o.stream_k_rule = rule;
    return sim::simulate(make_schedule(p, d, o)).makespan_ns;
}

std::string flags(const Problem& p) {
    std::string ctx;
    for (std::int64_t c : p.ctx) ctx += (ctx.empty() ? "" : ",") + std::to_string(c);
    if (std::all_of(p.ctx.begin(), p.ctx.end(), [&](std::int64_t c) { return c == p.ctx.front(); })) ctx = std::to_string(p.ctx.front());
    if (ctx.size() > 60) ctx = ctx.substr(0, 57) + "...";
    return "--batch " + std::to_string(p.batch) + " --heads " + std::to_string(p.q_heads) + " --kv-heads " + std::to_string(p.kv_heads) +
           " --head-dim " + std::to_string(p.head_dim) + " --ctx " + ctx;
}

struct Worst {
    double ratio = 0.0;
    std::string what;
};

}  // namespace

int main() {
    constexpr int shapes = 1500;
    std::vector<Worst> worst;
    std::printf("%-24s %7s | %-22s | %-22s | %-22s | %s\n", "setting", "shapes", "aligned > no-split", "aligned > fixed-split", "aligned > paper",
                "paper / aligned (mean)");
    for (std::int64_t per_sm : {1, 2}) {
        for (bool ragged : {false, true}) {
            std::mt19937_64 rng(static_cast<std::uint64_t>(1000 + 10 * per_sm + (ragged ? 1 : 0)));
            DeviceSpec d;  // h100-sxm
            d.ctas_per_sm = per_sm;
            int slower[3] = {0, 0, 0};
            double most[3] = {1.0, 1.0, 1.0}, gain = 0.0;
            for (int i = 0; i < shapes; ++i) {
                const Problem p = random_shape(rng, ragged);
                const double aligned = simulate(p, d, Strategy::stream_k, StreamKRule::aligned);
                const double against[3] = {simulate(p, d, Strategy::no_split, StreamKRule::aligned),
                                           simulate(p, d, Strategy::fixed_split, StreamKRule::aligned),
                                           simulate(p, d, Strategy::stream_k, StreamKRule::paper)};
                const char* names[3] = {"no-split", "fixed-split", "paper"};
                for (int k = 0; k < 3; ++k) {
                    const double ratio = aligned / against[k];
                    if (ratio > 1.001) ++slower[k];
                    most[k] = std::max(most[k], ratio);
                    if (ratio > 1.05) {
                        worst.push_back({ratio, std::to_string(per_sm) + " CTA/SM: " + flags(p) + ": aligned " + std::to_string(aligned / 1e3).substr(0, 6) +
                                                    " us, " + names[k] + " " + std::to_string(against[k] / 1e3).substr(0, 6) + " us"});
                    }
                }
                gain += against[2] / aligned;
            }
            auto cell = [&](int k) {
                char buf[64];
                std::snprintf(buf, sizeof buf, "%5.1f%% (worst %.2fx)", 100.0 * slower[k] / shapes, most[k]);
                return std::string(buf);
            };
            const std::string setting = std::to_string(per_sm) + " CTA/SM, " + (ragged ? "ragged" : "uniform");
            std::printf("%-24s %7d | %-22s | %-22s | %-22s | %.3fx\n", setting.c_str(), shapes, cell(0).c_str(), cell(1).c_str(), cell(2).c_str(),
                        gain / shapes);
        }
    }
    std::sort(worst.begin(), worst.end(), [](const Worst& a, const Worst& b) { return a.ratio > b.ratio; });
    std::printf("\nworst cases (aligned over the other, > 1.05x):\n");
    for (std::size_t i = 0; i < std::min<std::size_t>(worst.size(), 12); ++i) std::printf("%.2fx  %s\n", worst[i].ratio, worst[i].what.c_str());
    return 0;
}

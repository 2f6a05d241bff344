#include "simulation_report.hpp"

#include <algorithm>
#include <cstdio>

#include "problem_json.hpp"

namespace leanattn::app {

using nlohmann::ordered_json;

double SimulationReport::speedup_vs_fixed_split(const sim::SimResult& r) const {
    for (const sim::SimResult& other : results) {
        if (other.strategy == Strategy::fixed_split) return other.makespan_ns / r.makespan_ns;
    }
    return 0.0;
}

std::string describe_setup(const Problem& p, const DeviceSpec& d, const std::string& dtype, const std::string& varied) {
    std::string ctx;
    const auto [lo, hi] = std::minmax_element(p.ctx.begin(), p.ctx.end());
    if (*lo == *hi) ctx = std::to_string(*lo);
    else ctx = std::to_string(*lo) + ".." + std::to_string(*hi) + " (ragged, mean " + std::to_string((p.total_ctx() + p.batch / 2) / p.batch) + ")";
    if (varied == "ctx") ctx = "varied";
    if (varied == "ragged") ctx = "max " + std::to_string(*hi) + ", ragged (varied)";
    const std::string batch = varied == "batch" ? "varied" : std::to_string(p.batch);
    const std::string heads = varied == "heads" ? "varied" : std::to_string(p.q_heads) + "/" + std::to_string(p.kv_heads);
    return d.name + " (" + std::to_string(d.sms) + " SMs x " + std::to_string(d.ctas_per_sm) + " CTAs/SM), batch " + batch +
           ", heads " + heads + ", d " + std::to_string(p.head_dim) +
           (p.q_len > 1 ? ", q-len " + std::to_string(p.q_len) : "") + ", ctx " + ctx + ", tile " + std::to_string(p.tile) + ", " + dtype;
}

void write_simulation_text(std::ostream& out, const SimulationReport& report) {
    const double kv_mb = report.results.empty() ? 0.0 : report.results.front().kv_bytes / 1e6;
    out << "simulated: " << describe_setup(report.problem, report.device, report.dtype) << ", kernel model " << report.kernel << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "K+V read: %.1f MB\n\n", kv_mb);
    out << line;
    std::snprintf(line, sizeof line, "%-12s %7s %8s %6s %12s %9s %6s %8s %9s %8s %8s\n", "strategy", "grid", "launches", "waves",
                  "makespan_us", "occupancy", "idle", "waiting", "reduction", "GB/s", "vs_fixed");
    out << line;
    for (const sim::SimResult& r : report.results) {
        const double speedup = report.speedup_vs_fixed_split(r);
        char vs[16] = "-";
        if (speedup > 0.0) std::snprintf(vs, sizeof vs, "%.2fx", speedup);
        std::snprintf(line, sizeof line, "%-12s %7lld %8lld %6lld %12.1f %8.1f%% %5.1f%% %7.1f%% %8.1f%% %8.0f %8s\n",
                      std::string(strategy_name(r.strategy)).c_str(), static_cast<long long>(r.grid), static_cast<long long>(r.launches),
                      static_cast<long long>(r.waves), r.makespan_ns / 1e3, 100.0 * r.occupancy(), 100.0 * r.idle_sm_fraction(),
                      100.0 * r.waiting_fraction(), 100.0 * r.reduction_share(), r.kv_gb_per_s(), vs);
        out << line;
    }
    for (const sim::SimResult& r : report.results) {
        if (r.strategy == Strategy::fixed_split) out << "\nfixed-split: " << r.splits << " split" << (r.splits == 1 ? "" : "s") << " per output";
    }
    out << "\noccupancy = SM-time computing or reducing / (SMs x makespan); idle = no CTA on the SM; waiting = a host waiting for peers;\n"
           "reduction = SM-time spent only because outputs were split (partials, merges, waits, reduce launch).\n";
}

ordered_json simulation_to_json(const SimulationReport& report) {
    const Problem& p = report.problem;
    const DeviceSpec& d = report.device;
    ordered_json j;
    j["device"] = {{"name", d.name}, {"sms", d.sms}, {"ctas_per_sm", d.ctas_per_sm}};
    j["kernel"] = report.kernel;
    j["problem"] = problem_to_json(p);
    j["dtype"] = report.dtype;
    ordered_json results = ordered_json::array();
    for (const sim::SimResult& r : report.results) {
        ordered_json row = {{"strategy", std::string(strategy_name(r.strategy))}, {"grid", r.grid}, {"launches", r.launches},
                            {"makespan_us", r.makespan_ns / 1e3}, {"occupancy", r.occupancy()}, {"idle_sm_fraction", r.idle_sm_fraction()},
                            {"splits", r.splits}, {"waves", r.waves}, {"waiting_fraction", r.waiting_fraction()},
                            {"reduction_share", r.reduction_share()}, {"kv_gb_per_s", r.kv_gb_per_s()}};
        const double speedup = report.speedup_vs_fixed_split(r);
        if (speedup > 0.0) row["speedup_vs_fixed_split"] = speedup;
        results.push_back(std::move(row));
    }
    j["results"] = std::move(results);
    if (!report.auto_choice.is_null()) j["auto"] = report.auto_choice;
    return j;
}

}  // namespace leanattn::app

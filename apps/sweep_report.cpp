#include "sweep_report.hpp"

#include <algorithm>
#include <cstdio>

#include "simulation_report.hpp"

namespace leanattn::app {

using nlohmann::ordered_json;

namespace {

std::int64_t mean_ctx(const Problem& p) { return (p.total_ctx() + p.batch / 2) / p.batch; }  // rounded
std::int64_t max_ctx(const Problem& p) { return *std::max_element(p.ctx.begin(), p.ctx.end()); }

std::string snake(Strategy s) {
    std::string name(strategy_name(s));
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

std::string number(double v, const char* format) {
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// Empty when not simulated, so a CSV reader sees a missing value rather than a zero speedup.
std::string speedup_cell(double v) { return v > 0.0 ? number(v, "%.4f") : std::string(); }

bool any_choice(const SweepReport& report) {
    return std::any_of(report.rows.begin(), report.rows.end(), [](const sim::SweepRow& r) { return r.chosen.has_value(); });
}

}  // namespace

std::string chosen_plan(const sim::SweepChoice& c) {
    const sim::StrategyChoice& s = c.choice;
    std::string text(strategy_name(s.options.strategy));
    if (s.options.strategy == Strategy::stream_k) text += ", grid " + std::to_string(c.result.grid);
    if (s.options.strategy == Strategy::fixed_split) text += ", " + std::to_string(s.splits) + (s.splits == 1 ? " split" : " splits");
    if (s.tile_rows > 0) text += ", " + std::to_string(s.tile_rows) + "-row tiles";
    return text;
}

std::string sweep_axis_label(const std::string& vary) { return vary == "ragged" ? "mean/max ctx %" : vary; }

void write_sweep_text(std::ostream& out, const SweepReport& report) {
    out << "sweep of " << sweep_axis_label(report.vary) << ": " << describe_setup(report.base, report.device, report.dtype, report.vary)
        << ", kernel model " << report.kernel << "\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%12s", sweep_axis_label(report.vary).c_str());
    out << line;
    if (!report.rows.empty()) {
        for (const sim::SimResult& r : report.rows.front().results) {
            std::snprintf(line, sizeof line, " %16s", (std::string(strategy_name(r.strategy)) + "_us").c_str());
            out << line;
        }
    }
    const bool chosen = any_choice(report);
    // The speedups need stream-k and a baseline: a sweep of one strategy prints its times alone.
    const bool speedups = std::any_of(report.rows.begin(), report.rows.end(), [](const sim::SweepRow& row) {
        return row.speedup_over(Strategy::fixed_split) > 0.0 || row.speedup_over(Strategy::no_split) > 0.0;
    });
    if (chosen) out << "          auto_us";
    out << (speedups ? "      LA/FD     LA/FA2" : "") << (chosen ? "  auto's plan" : "") << "\n";
    for (const sim::SweepRow& row : report.rows) {
        std::snprintf(line, sizeof line, "%12lld", static_cast<long long>(row.value));
        out << line;
        for (const sim::SimResult& r : row.results) {
            std::snprintf(line, sizeof line, " %16.1f", r.makespan_ns / 1e3);
            out << line;
        }
        if (chosen) out << (row.chosen ? number(row.chosen->result.makespan_ns / 1e3, " %16.1f") : std::string(17, ' '));
        const double fd = row.speedup_over(Strategy::fixed_split), fa2 = row.speedup_over(Strategy::no_split);
        if (speedups) out << "  " << (fd > 0 ? number(fd, "%8.2fx") : "        -") << "  " << (fa2 > 0 ? number(fa2, "%8.2fx") : "        -");
        if (row.chosen) out << "  " << chosen_plan(*row.chosen);
        out << "\n";
    }
}

void write_sweep_csv(std::ostream& out, const SweepReport& report) {
    out << "vary,value,batch,heads,kv_heads,ctx_mean,ctx_max";
    if (!report.rows.empty()) {
        for (const sim::SimResult& r : report.rows.front().results) {
            out << "," << snake(r.strategy) << "_us," << snake(r.strategy) << "_occupancy";
            if (r.strategy == Strategy::fixed_split) out << ",fixed_split_splits";
        }
    }
    out << ",speedup_la_over_fd,speedup_la_over_fa2";
    const bool chosen = any_choice(report);
    if (chosen) out << ",auto_us,auto_strategy,auto_grid,auto_splits,auto_tile_rows";
    out << "\n";
    for (const sim::SweepRow& row : report.rows) {
        const Problem& p = row.problem;
        out << report.vary << "," << row.value << "," << p.batch << "," << p.q_heads << "," << p.kv_heads << "," << mean_ctx(p) << "," << max_ctx(p);
        for (const sim::SimResult& r : row.results) {
            out << "," << number(r.makespan_ns / 1e3, "%.3f") << "," << number(r.occupancy(), "%.4f");
            if (r.strategy == Strategy::fixed_split) out << "," << r.splits;
        }
        out << "," << speedup_cell(row.speedup_over(Strategy::fixed_split)) << "," << speedup_cell(row.speedup_over(Strategy::no_split));
        if (chosen && row.chosen) {
            const sim::StrategyChoice& c = row.chosen->choice;
            out << "," << number(row.chosen->result.makespan_ns / 1e3, "%.3f") << "," << strategy_name(c.options.strategy) << "," << row.chosen->result.grid
                << "," << c.splits << "," << c.tile_rows;
        } else if (chosen) {
            out << ",,,,,";
        }
        out << "\n";
    }
}

ordered_json sweep_to_json(const SweepReport& report) {
    ordered_json j;
    j["vary"] = report.vary;
    j["device"] = {{"name", report.device.name}, {"sms", report.device.sms}, {"ctas_per_sm", report.device.ctas_per_sm}};
    j["kernel"] = report.kernel;
    j["dtype"] = report.dtype;
    ordered_json rows = ordered_json::array();
    for (const sim::SweepRow& row : report.rows) {
        const Problem& p = row.problem;
        ordered_json results = ordered_json::array();
        for (const sim::SimResult& r : row.results) {
            results.push_back({{"strategy", std::string(strategy_name(r.strategy))}, {"grid", r.grid}, {"launches", r.launches},
                               {"splits", r.splits}, {"waves", r.waves}, {"makespan_us", r.makespan_ns / 1e3}, {"occupancy", r.occupancy()},
                               {"idle_sm_fraction", r.idle_sm_fraction()}, {"reduction_share", r.reduction_share()}});
        }
        ordered_json entry = {{"value", row.value},
                              {"problem", {{"batch", p.batch}, {"q_heads", p.q_heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim},
                                           {"tile", p.tile}, {"ctx_mean", mean_ctx(p)}, {"ctx_max", max_ctx(p)}}},
                              {"results", std::move(results)}};
        const double fd = row.speedup_over(Strategy::fixed_split), fa2 = row.speedup_over(Strategy::no_split);
        if (fd > 0.0) entry["speedup_la_over_fd"] = fd;
        if (fa2 > 0.0) entry["speedup_la_over_fa2"] = fa2;
        if (row.chosen) {
            const sim::StrategyChoice& c = row.chosen->choice;
            entry["auto"] = {{"strategy", std::string(strategy_name(c.options.strategy))}, {"grid", row.chosen->result.grid}, {"splits", c.splits},
                             {"tile_rows", c.tile_rows}, {"makespan_us", row.chosen->result.makespan_ns / 1e3}, {"predicted_us", c.predicted_us}};
        }
        rows.push_back(std::move(entry));
    }
    j["rows"] = std::move(rows);
    return j;
}

}  // namespace leanattn::app

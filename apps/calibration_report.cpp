#include "calibration_report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <numeric>
#include <sstream>

#include "core/input_error.hpp"
#include "core/strategy.hpp"
#include "sim/strategy_choice.hpp"

namespace leanattn::app {

using sim::MeasuredRun;

namespace {

// What a run's plan is, as a choice among a problem's runs: no-split's plan whichever strategy made it.
Strategy plan_kind(const Schedule& plan) { return sim::runs_as_no_split(plan) ? Strategy::no_split : plan.strategy; }

// The runs of one problem that ran one plan.
struct Choice {
    std::size_t fastest;       // its fastest run
    double slowest_us = 0.0;   // its slowest run's time (several runs: the same plan timed under each strategy)
    double noise = 0.0;        // the largest round-to-round spread of its runs
    explicit Choice(std::size_t none) : fastest(none) {}
};

}  // namespace

CalibrationCheck check_predictions(const std::string& title, const sim::PlannedRuns& planned, const std::vector<double>& predicted_us,
                                   const sim::KernelModel& kernel, const DeviceSpec& device, double copy_gbps) {
    const std::vector<MeasuredRun>& runs = planned.runs;
    if (!(copy_gbps > 0.0)) throw InputError("copy bandwidth", "unknown: neither the device file nor the measured runs give one (the roofline needs it)");
    CalibrationCheck c;
    c.title = title;
    c.runs = runs.size();
    c.model = sim::summarize_errors(predicted_us, runs);
    std::vector<bool> small(runs.size());
    std::vector<double> roofline(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const double bytes = static_cast<double>(runs[i].problem.kv_bytes(runs[i].bytes_per_element));
        small[i] = bytes < 64e6;
        roofline[i] = (bytes / copy_gbps + kernel.launch_ns + kernel.plan_wait_ns + kernel.cta_setup_ns) / 1e3;
        c.waves_exact += planned.waves[i] == sim::Waves::exact ? 1 : 0;
        if (planned.waves[i] == sim::Waves::differ && ++c.waves_differ <= 8) {
            const Schedule& plan = planned.plans[i];
            std::ostringstream line;
            line << strategy_name(runs[i].strategy) << ": the GPU ran " << runs[i].grid << " CTAs";
            if (runs[i].gpu_slots > 0) line << " on " << runs[i].gpu_slots << " slots";
            line << ", the replay " << plan.grid << " on " << plan.device.resident_ctas() << "  " << runs[i].label;
            c.waves_wrong.push_back(line.str());
        }
    }
    c.small_model = sim::summarize_errors(predicted_us, runs, small);
    c.small_roofline = sim::summarize_errors(roofline, runs, small);
    for (const Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        std::vector<bool> mine(runs.size());
        for (std::size_t i = 0; i < runs.size(); ++i) mine[i] = runs[i].strategy == s;
        const sim::ErrorSummary e = sim::summarize_errors(predicted_us, runs, mine);
        if (e.runs > 0) c.by_strategy.emplace_back(std::string(strategy_name(s)), e);
    }

    std::vector<double> auto_times;
    // Problems: consecutive runs of one record (the same label and record).
    for (std::size_t begin = 0; begin < runs.size();) {
        std::size_t end = begin;
        while (end < runs.size() && runs[end].label == runs[begin].label && runs[end].record == runs[begin].record) ++end;
        ++c.problems;
        std::size_t chosen = end;  // auto's pick among the three plans that ran (end: not all three ran)
        if (end - begin == 3) {  // the three strategies measured: what would auto have run?
            // Its host time: the whole choice, every candidate weighed.
            const auto t0 = std::chrono::steady_clock::now();
            (void)sim::choose_strategy(runs[begin].problem, device, kernel, runs[begin].bytes_per_element);
            auto_times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
            // Its pick among the three plans that ran (their replays: the planner may plan otherwise today), by
            // choose_strategy's rule for the default plans (sim::default_plans: their order and margins).
            for (const sim::DefaultPlan& d : sim::default_plans) {
                for (std::size_t i = begin; i < end; ++i) {
                    if (runs[i].strategy == d.strategy && (chosen == end || sim::beats(predicted_us[i], predicted_us[chosen], sim::default_plan_margin(d, planned.plans[i])))) chosen = i;
                }
            }
            // Stream-k of one whole output per CTA is no-split's plan: auto takes no-split's run of it (strategy_choice.cpp).
            if (runs[chosen].strategy == Strategy::stream_k && plan_kind(planned.plans[chosen]) == Strategy::no_split) {
                for (std::size_t i = begin; i < end; ++i) {
                    if (runs[i].strategy == Strategy::no_split) chosen = i;
                }
            }
            double best = runs[begin].measured_us;
            for (std::size_t i = begin; i < end; ++i) best = std::min(best, runs[i].measured_us);
            const double picked = runs[chosen].measured_us;
            ++c.auto_problems;
            c.auto_within_3pct += picked <= 1.03 * best ? 1 : 0;
            c.auto_worst_loss = std::max(c.auto_worst_loss, picked / best - 1.0);
        }
        // The fastest strategy, where the GPU's times decide it. Runs of one plan (no-split's very plan, run as
        // stream-k of one whole output per CTA or fixed-split of one split) are one choice: the gap between their
        // times is the same work timed twice, run-to-run noise by construction, so it joins the noise floor.
        std::map<Strategy, Choice> choices;  // by plan: no-split's plan under whichever strategy ran it
        for (std::size_t i = begin; i < end; ++i) {
            Choice& ch = choices.try_emplace(plan_kind(planned.plans[i]), end).first->second;
            ch.noise = std::max(ch.noise, runs[i].noise);
            if (ch.fastest == end || runs[i].measured_us < runs[ch.fastest].measured_us) ch.fastest = i;
            ch.slowest_us = std::max(ch.slowest_us, runs[i].measured_us);
        }
        if (choices.size() >= 2) {
            std::vector<const Choice*> order;
            double same_plan_spread = 0.0;  // of any plan run under two strategies
            for (const auto& [kind, ch] : choices) {
                order.push_back(&ch);
                const double fastest_us = runs[ch.fastest].measured_us;
                same_plan_spread = std::max(same_plan_spread, (ch.slowest_us - fastest_us) / fastest_us);
            }
            std::sort(order.begin(), order.end(), [&](const Choice* a, const Choice* b) { return runs[a->fastest].measured_us < runs[b->fastest].measured_us; });
            const double best_us = runs[order[0]->fastest].measured_us;
            const double gap = (runs[order[1]->fastest].measured_us - best_us) / best_us;
            if (gap > std::max({0.01, same_plan_spread, order[0]->noise, order[1]->noise})) {
                ++c.fastest_decided;
                const std::size_t predicted = sim::fastest_run(predicted_us, runs, begin, end);
                const std::size_t measured = order[0]->fastest;
                if (chosen != end) {
                    ++c.auto_picks_decided;
                    c.auto_picks_fastest += plan_kind(planned.plans[chosen]) == plan_kind(planned.plans[measured]) ? 1 : 0;
                }
                if (plan_kind(planned.plans[predicted]) == plan_kind(planned.plans[measured])) {
                    ++c.fastest_right;
                } else {
                    std::ostringstream line;
                    line << std::fixed << std::setprecision(1) << strategy_name(runs[measured].strategy) << " ran " << runs[measured].measured_us << " us, "
                         << 100.0 * gap << "% ahead of the runner-up; predicted first: " << strategy_name(runs[predicted].strategy) << " ("
                         << std::showpos << 100.0 * (predicted_us[predicted] / predicted_us[measured] - 1.0) << std::noshowpos << "% against "
                         << strategy_name(runs[measured].strategy) << ")  " << runs[begin].label;
                    c.fastest_wrong.push_back(line.str());
                }
            }
        }
        begin = end;
    }
    if (!auto_times.empty()) {
        std::nth_element(auto_times.begin(), auto_times.begin() + static_cast<std::ptrdiff_t>(auto_times.size() / 2), auto_times.end());
        c.auto_host_us = auto_times[auto_times.size() / 2];
    }
    std::vector<std::size_t> order(runs.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::abs(predicted_us[a] / runs[a].measured_us - 1) > std::abs(predicted_us[b] / runs[b].measured_us - 1);
    });
    for (std::size_t k = 0; k < std::min<std::size_t>(8, order.size()); ++k) {
        const std::size_t i = order[k];
        std::ostringstream line;
        line << std::fixed << std::setprecision(1) << std::setw(+7) << std::showpos << 100.0 * (predicted_us[i] / runs[i].measured_us - 1) << std::noshowpos
             << "%  " << std::setw(11) << strategy_name(runs[i].strategy) << "  measured " << std::setw(8) << runs[i].measured_us << " us  predicted "
             << std::setw(8) << predicted_us[i] << " us  " << runs[i].label;
        c.worst.push_back(line.str());
    }
    return c;
}

namespace {

std::string percent(double x) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << 100.0 * x << "%";
    return s.str();
}

nlohmann::ordered_json summary_json(const sim::ErrorSummary& s) {
    return {{"runs", s.runs}, {"median", s.median}, {"p95", s.p95}, {"worst", s.worst}, {"median_signed", s.median_signed}};
}

nlohmann::ordered_json by_strategy_json(const CalibrationCheck& c) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [name, e] : c.by_strategy) j[name] = summary_json(e);
    return j;
}

}  // namespace

void write_check_text(std::ostream& out, const CalibrationCheck& c) {
    out << c.title << ": " << c.problems << " problems, " << c.runs << " runs\n"
        << "  |predicted - measured| / measured   median " << percent(c.model.median) << "   p95 " << percent(c.model.p95) << "   worst "
        << percent(c.model.worst) << "   (signed median " << percent(c.model.median_signed) << ")\n"
        << "  under 64 MB (" << c.small_model.runs << " runs): model median " << percent(c.small_model.median) << ", p95 " << percent(c.small_model.p95)
        << "; roofline median " << percent(c.small_roofline.median) << ", p95 " << percent(c.small_roofline.p95) << "\n"
        << "  by strategy:";
    for (const auto& [name, e] : c.by_strategy) out << "  " << name << " median " << percent(e.median) << " (signed " << percent(e.median_signed) << ")";
    out << "\n"
        << "  waves exact: " << c.waves_exact << " of " << c.runs << " runs replayed in the waves the GPU ran them in (the GPU's grid, on its SMs x CTAs per SM)";
    if (const std::size_t unknown = c.runs - c.waves_exact - c.waves_differ; unknown > 0) out << "; " << unknown << " record no occupancy";
    out << "\n"
        << "  fastest strategy right: " << c.fastest_right << " of " << c.fastest_decided << " problems whose measured gap exceeds the noise"
        << " (auto's pick by its margins: the fastest on " << c.auto_picks_fastest << " of " << c.auto_picks_decided << ")\n"
        << "  --strategy auto: within 3% of the best measured on " << c.auto_within_3pct << " of " << c.auto_problems << " problems (worst "
        << percent(c.auto_worst_loss) << " slower); " << std::fixed << std::setprecision(1) << c.auto_host_us << " us of host time per choice (median)\n"
        << "  worst runs:\n";
    for (const std::string& w : c.worst) out << "    " << w << "\n";
    if (!c.waves_wrong.empty()) out << "  waves differ" << (c.waves_differ > c.waves_wrong.size() ? " (the first 8)" : "") << ":\n";
    for (const std::string& w : c.waves_wrong) out << "    " << w << "\n";
    if (!c.fastest_wrong.empty()) out << "  fastest strategy wrong:\n";
    for (const std::string& w : c.fastest_wrong) out << "    " << w << "\n";
}

nlohmann::ordered_json check_to_json(const CalibrationCheck& c) {
    return {{"title", c.title},
            {"problems", c.problems},
            {"runs", c.runs},
            {"error", summary_json(c.model)},
            {"under_64mb", {{"model", summary_json(c.small_model)}, {"roofline", summary_json(c.small_roofline)}}},
            {"by_strategy", by_strategy_json(c)},
            {"waves", {{"exact", c.waves_exact}, {"differ", c.waves_differ}, {"not_recorded", c.runs - c.waves_exact - c.waves_differ}}},
            {"fastest_right", c.fastest_right},
            {"auto_picks_fastest", c.auto_picks_fastest},
            {"auto_picks_decided", c.auto_picks_decided},
            {"fastest_decided", c.fastest_decided},
            {"auto", {{"within_3pct", c.auto_within_3pct}, {"problems", c.auto_problems}, {"worst_loss", c.auto_worst_loss}, {"host_us_median", c.auto_host_us}}},
            {"worst", c.worst},
            {"fastest_wrong", c.fastest_wrong},
            {"waves_wrong", c.waves_wrong}};
}

void write_checked_runs(std::ostream& out, const sim::PlannedRuns& planned, const std::vector<double>& predicted_us) {
    for (std::size_t i = 0; i < planned.runs.size(); ++i) {
        const MeasuredRun& r = planned.runs[i];
        const Schedule& plan = planned.plans[i];
        out << nlohmann::ordered_json{{"flags", r.label},
                                      {"strategy", std::string(strategy_name(r.strategy))},
                                      {"grid", plan.grid},
                                      {"rows_per_kv_head", r.problem.rows()},
                                      {"block_rows", r.problem.block_rows()},
                                      {"measured_us", r.measured_us},
                                      {"predicted_us", predicted_us[i]},
                                      {"error", predicted_us[i] / r.measured_us - 1.0}}
                   .dump()
            << "\n";
    }
}

}  // namespace leanattn::app

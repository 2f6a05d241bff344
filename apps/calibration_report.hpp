// calibration_report.hpp — how well a kernel model predicts a measured sweep, as text or JSON.
//
// Per sweep: prediction error of every run (median, 95th percentile, worst, signed median), waves exact
// (each replay in the GPU's waves: sim::replay_waves), the fastest strategy predicted right on the problems whose measured
// gap between the two fastest exceeds their run-to-run noise (at least 1%), and the same errors for a plain
// roofline (K+V bytes / copy bandwidth + one launch's fixed cost) on the problems under 64 MB.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/calibration.hpp"

namespace leanattn::app {

struct CalibrationCheck {
    std::string title;
    sim::ErrorSummary model, small_model, small_roofline;  // small: K+V under 64 MB
    std::vector<std::pair<std::string, sim::ErrorSummary>> by_strategy;  // the model's errors over each strategy's runs
    std::size_t runs = 0;
    std::size_t waves_exact = 0, waves_differ = 0;  // runs whose replay has the GPU's waves, or not (the rest record no occupancy)
    std::size_t fastest_right = 0, fastest_decided = 0;  // problems whose measured gap exceeds noise
    // Of those where all three strategies ran: where auto's pick among them (sim::default_plans: the order and margins it
    // weighs them by) is the plan that ran fastest. The margins stand for the model's errors where plans come close.
    std::size_t auto_picks_fastest = 0, auto_picks_decided = 0;
    std::size_t problems = 0;
    // --strategy auto (sim/strategy_choice.hpp, the three default plans): its pick within 3% of the best
    // measured strategy, and the worst loss; host time per choice (median, µs).
    std::size_t auto_within_3pct = 0, auto_problems = 0;
    double auto_worst_loss = 0.0, auto_host_us = 0.0;
    std::vector<std::string> worst;  // the worst runs, one line each
    std::vector<std::string> fastest_wrong;  // each decided problem whose fastest strategy the model got wrong, one line each
    std::vector<std::string> waves_wrong;    // the first 8 runs whose replay's waves differ from the GPU's, one line each
};

// `copy_gbps`: the device's copy bandwidth for the roofline.
CalibrationCheck check_predictions(const std::string& title, const sim::PlannedRuns& planned, const std::vector<double>& predicted_us,
                                   const sim::KernelModel& kernel, const DeviceSpec& device, double copy_gbps);

void write_check_text(std::ostream& out, const CalibrationCheck& check);
nlohmann::ordered_json check_to_json(const CalibrationCheck& check);

// One JSON line per run: its "flags", "strategy", the remade plan's "grid", "rows_per_kv_head", "block_rows" (the rows of
// each of its row blocks), "measured_us", "predicted_us" and "error" (predicted / measured − 1): `calibrate --runs`.
void write_checked_runs(std::ostream& out, const sim::PlannedRuns& planned, const std::vector<double>& predicted_us);

}  // namespace leanattn::app

// simulation_report.hpp — `simulate`'s results as a text table and as JSON (docs/design.md keys + more).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "core/device_spec.hpp"
#include "core/problem.hpp"
#include "sim/simulation.hpp"

namespace leanattn::app {

struct SimulationReport {
    const Problem& problem;
    const DeviceSpec& device;
    std::string dtype;
    const std::vector<sim::SimResult>& results;
    nlohmann::ordered_json auto_choice = nullptr;  // --strategy auto: auto_choice_json, the JSON's "auto" key; null: none
    std::string kernel = "paper";                  // the kernel model the plans were played under (KernelModel::name)

    // fixed-split's makespan / this one's; 0 when fixed-split was not simulated.
    double speedup_vs_fixed_split(const sim::SimResult& r) const;
};

// One line: "h100-sxm (132 SMs x 2 CTAs/SM), batch 6, heads 48/48, d 64, ctx 65536, tile 256, fp16".
// `varied` (a sweep's ctx|heads|batch|ragged) is shown as "varied" instead of the base problem's value.
std::string describe_setup(const Problem& problem, const DeviceSpec& device, const std::string& dtype, const std::string& varied = "");

void write_simulation_text(std::ostream& out, const SimulationReport& report);

// { "device", "kernel", "problem", "dtype", "results": [ { "strategy", "grid", "launches", "makespan_us", "occupancy",
//   "idle_sm_fraction", "splits", "waves", "waiting_fraction", "reduction_share", "kv_gb_per_s",
//   "speedup_vs_fixed_split" } ] }
nlohmann::ordered_json simulation_to_json(const SimulationReport& report);

}  // namespace leanattn::app

// sweep_report.hpp — `sweep`'s rows as a text table, CSV and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "core/device_spec.hpp"
#include "core/problem.hpp"
#include "sim/sweep.hpp"

namespace leanattn::app {

struct SweepReport {
    std::string vary;
    const DeviceSpec& device;
    std::string dtype;
    const Problem& base;
    const std::vector<sim::SweepRow>& rows;
    std::string kernel = "paper";  // the kernel model the plans were played under (KernelModel::name)
};

// The plan auto chose at a value, in words: "stream-k, grid 132", "fixed-split, 4 splits", "no-split, 8-row tiles".
std::string chosen_plan(const sim::SweepChoice& c);

// "ctx", "heads", "batch" or "mean/max ctx %": what the x values are.
std::string sweep_axis_label(const std::string& vary);

void write_sweep_text(std::ostream& out, const SweepReport& report);

// Header: vary,value,batch,heads,kv_heads,ctx_mean,ctx_max, then per strategy <name>_us,<name>_occupancy
// (+ fixed_split_splits), then speedup_la_over_fd,speedup_la_over_fa2 (empty when not simulated), and with auto
// auto_us,auto_strategy,auto_grid,auto_splits,auto_tile_rows (its plan at that value; tile rows 0: the problem's).
void write_sweep_csv(std::ostream& out, const SweepReport& report);

// { "vary", "device", "kernel", "dtype", "rows": [ { "value", "problem", "results": [ … ], "speedup_la_over_fd", "speedup_la_over_fa2",
//   "auto": { "strategy", "grid", "splits", "tile_rows", "makespan_us", "predicted_us" } (with auto) } ] }
nlohmann::ordered_json sweep_to_json(const SweepReport& report);

}  // namespace leanattn::app

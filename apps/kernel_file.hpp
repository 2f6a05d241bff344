// kernel_file.hpp — kernel models (data/kernels/*.json, sim/kernel_model.hpp) from and to JSON.
//
// A kernel file holds every field of sim::KernelModel under the same name (units in the names), plus
// "merge" ("serial" | "all_at_once" | "shared"), "compute_overlaps_loads" (true | false) and, optionally, "fitted"
// (what `leanattn calibrate` measured the fit on: free text). Refusals are InputErrors naming the file as
// `kernel` and the key, as device files' are.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/kernel_model.hpp"

namespace leanattn::app {

sim::KernelModel kernel_from_text(const std::string& text, const std::string& source);

// Every field, in the file's order; `fitted` is written when not empty.
nlohmann::ordered_json kernel_to_json(const sim::KernelModel& kernel, const std::string& fitted = "");

}  // namespace leanattn::app

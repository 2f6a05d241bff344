// convert.hpp — the C ABI's plain structs as the library's types.
#pragma once

#include "core/decode_tensors.hpp"
#include "core/problem.hpp"
#include "core/schedule.hpp"
#include "auto_strategy.hpp"
#include "leanattn.h"

namespace leanattn::capi {

Problem to_problem(const leanattn_problem* problem, const CostLimits& limits);  // checked (InputError naming the field)
DType to_dtype(leanattn_dtype dtype);
Strategy to_strategy(const char* name);                     // NULL: stream-k
PlanOptions to_plan_options(const leanattn_plan_options* options);
// Whether the options ask for "auto" (the plan the kernel model predicts fastest: docs/calibration.md).
bool wants_auto(const leanattn_plan_options* options);
// The kind of step "auto" weighs plans for: options->lengths, NULL being "device".
app::StepLengths to_step_lengths(const leanattn_plan_options* options);
DecodeTensors to_tensors(const leanattn_tensors* tensors, DType dtype);

}  // namespace leanattn::capi

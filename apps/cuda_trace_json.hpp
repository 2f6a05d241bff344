// cuda_trace_json.hpp — the per-CTA trace of `leanattn cuda bench --trace FILE` as JSON (docs/trace.md):
// per strategy, every CTA with its SM, start and end, and its segments as the plan gives them (the keys of
// `schedule --format json`) with the times of their phases, in ns from the launch's first CTA start.
#pragma once

#include <nlohmann/json.hpp>

#include "cuda/harness.hpp"

namespace leanattn::app {

nlohmann::ordered_json cuda_trace_json(const cuda::HarnessCase& harness, const cuda::Benchmark& bench);

}  // namespace leanattn::app

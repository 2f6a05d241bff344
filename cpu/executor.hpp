// executor.hpp — runs any plan for real on OpenMP threads, each thread playing SMs, exactly as the GPU
// kernel would: CTAs walk their segments with the core's walker, non-host segments publish partials and
// signal a flag (release), hosts wait on their peers' flags (acquire) and reduce in plan order.
// stream-k: one phase (fused reduction). fixed-split: splits, then a reduce pass (Flash-Decoding's two
// kernels). no-split: one phase, no partials.
#pragma once

#include "core/schedule.hpp"
#include "decode_tensors.hpp"

namespace leanattn::cpu {

// Runs `schedule` on `tensors` (writes O and LSE) with `threads` threads (0 = OpenMP's default).
// Deterministic: the result is bitwise identical for any thread count, since every reduction happens
// in the order the plan fixes.
void execute_plan(const Schedule& schedule, DecodeTensors& tensors, int threads = 0);

}  // namespace leanattn::cpu

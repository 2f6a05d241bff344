// harness.hpp — validation and timing of the decode kernels on this GPU: what `leanattn cuda validate` and
// `leanattn cuda bench` run, as a library (the CLI only parses flags and prints).
//
// validate: fresh random inputs in the chosen layout, copied back to the host with the same strides; core's
//           float64 reference once; then per strategy 3 runs, each after poisoning out and softmax_lse with
//           NaN, each copied back and compared (core's compare_to_reference); pass = no non-finite value
//           and rel. L2 ≤ core's tolerance(dtype), the LSE within lse_tolerance (within_tolerance).
// bench:    per strategy, one decode step (prologue, decode, reduce) captured in a CUDA graph and replayed
//           with an L2 flush before each replay, in two blocks per strategy (the strategies in one order, then in
//           the reverse one, so that none is timed in a state of the GPU the others are not; the copy bandwidth is
//           measured once per process); median of `repeat` replays in µs, GB/s of K and V, and the
//           fraction of the floor = (K+V bytes / measured copy bandwidth) / time. With `trace`, one more
//           (untimed) run per strategy with the traced kernel (trace.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/device_spec.hpp"
#include "core/reference.hpp"
#include "core/schedule.hpp"
#include "core/tensor_layout.hpp"
#include "trace.hpp"

namespace leanattn::cuda {

struct HarnessCase {
    Problem problem;                  // ctx: the lengths of the step (and the cache's capacities)
    DType dtype = DType::fp16;
    CacheLayout layout = CacheLayout::padded;
    std::int64_t block_size = 16;     // paged layout only
    std::uint64_t seed = 1;
    PlanOptions plan;                 // its strategy is replaced by each of `strategies`
    std::vector<Strategy> strategies = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};
    DeviceTiming timing;              // the planner's cost fields (live_device supplies SMs and CTAs per SM)
    bool host_lengths = false;        // run host-lengths steps (decode.hpp: the host walks the plan, the launch carries it), not run()'s
    bool staged = false;              // with host_lengths: staged steps (decode.hpp: the table staged in the workspace, then run_staged;
                                      // bench captures run_staged alone, the table staged once before)
};

struct StrategyCheck {
    Strategy strategy = Strategy::stream_k;
    std::int64_t grid = 0;
    Errors worst;                     // over the runs: largest errors, non-finite values summed
    bool pass = false;
};

struct Validation {
    DeviceSpec device;
    double tolerance = 0;
    std::vector<StrategyCheck> results;
    bool ok() const;
};

// Throws InputError (check_supported, the plan, the layout) before touching the GPU's tensors.
Validation validate(const HarnessCase& c, int runs = 3);

struct StrategyTiming {
    Strategy strategy = Strategy::stream_k;
    std::int64_t grid = 0;
    std::int64_t launches = 1;
    std::int64_t splits = 1;
    std::int64_t snap = 0;            // stream-k: the plan's snap (a replay at this grid and snap makes the very plan)
    bool narrow_streams = false;      // the kernel read K and V with half its warps (Schedule::narrow_streams)
    double median_us = 0;
    double gbps = 0;                  // K+V bytes / median time
    double fraction_of_floor = 0;     // floor_us / median_us
};

struct Benchmark {
    DeviceSpec device;
    double copy_gbps = 0;             // device-to-device copy, bytes read + written
    double kv_bytes = 0;              // K and V bytes one step reads
    double floor_us = 0;              // kv_bytes / copy bandwidth
    std::vector<StrategyTiming> results;
    std::vector<KernelTrace> traces;  // with `trace`: one per strategy
};

Benchmark bench(const HarnessCase& c, int repeat, bool trace);

}  // namespace leanattn::cuda

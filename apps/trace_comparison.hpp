// trace_comparison.hpp — a measured per-CTA trace (`leanattn cuda bench --trace`, docs/trace.md) beside the
// simulator's play of the same plans: `leanattn simulate --trace FILE`.
//
// The trace names the problem, the dtype and, per strategy, what every CTA did and when. Each strategy's
// plan is remade on the chosen device under the chosen kernel model and simulated; both timelines start at
// their first CTA's start (the trace's origin; the simulation's launch offset removed). Compared: the main
// kernel's makespan, each CTA's duration (start to end), and the time CTAs spent waiting for peers' flags
// and merging/storing partials (measured: the trace's `wait` intervals and `merge_store` minus its wait).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/problem.hpp"
#include "core/schedule.hpp"
#include "core/strategy.hpp"
#include "sim/simulation.hpp"

namespace leanattn::app {

// One segment as the trace lists it: its output and its LeanTiles [begin, end) local to that output.
struct TracedSegment {
    std::int64_t output = 0, begin = 0, end = 0;
    bool operator==(const TracedSegment&) const = default;
};

struct MeasuredCta {
    std::int64_t sm = 0;
    std::vector<TracedSegment> segments;  // in walk order: what remaking the plan must reproduce
    double start_ns = 0.0, end_ns = 0.0;
    double wait_ns = 0.0, merge_ns = 0.0;  // merge: partial stores, merges and output stores of split outputs
    bool empty = true;                     // the plan gave it no segment
};

struct MeasuredKernel {
    Strategy strategy = Strategy::stream_k;
    std::int64_t grid = 0;
    std::optional<std::int64_t> snap;    // stream-k: the plan's snap, where the trace records it
    std::optional<std::int64_t> splits;  // fixed-split: its split count, where the trace records it
    double makespan_ns = 0.0;
    std::vector<MeasuredCta> ctas;  // by CTA id
};

struct MeasuredTrace {
    std::string gpu;
    std::int64_t sms = 0, ctas_per_sm = 0;
    Problem problem;
    DType dtype = DType::fp16;
    std::vector<MeasuredKernel> kernels;
};

// Throws InputError naming the file (as `trace`) when it is not such a trace.
MeasuredTrace read_trace(const std::string& file);

struct KernelComparison {
    Strategy strategy = Strategy::stream_k;
    std::int64_t measured_grid = 0, simulated_grid = 0;
    std::int64_t snap = 0, splits = 1;  // the replayed plan's (stream-k's snap, fixed-split's split count): the trace's
    double measured_makespan_ns = 0.0, simulated_makespan_ns = 0.0;
    double cta_error_median = 0.0, cta_error_p90 = 0.0, cta_error_worst = 0.0;  // |sim − measured| / measured duration, CTAs with work
    double measured_wait_ns = 0.0, simulated_wait_ns = 0.0;    // summed over CTAs
    double measured_merge_ns = 0.0, simulated_merge_ns = 0.0;  // summed over CTAs
    const MeasuredKernel* measured = nullptr;
    std::vector<sim::CtaSpan> simulated;  // origin moved to the first CTA's start
};

struct TraceComparison {
    const MeasuredTrace* trace = nullptr;
    DeviceSpec device;  // simulated on: the device with the kernel's CTAs per SM (sim::device_for_kernel)
    std::string kernel;
    std::vector<KernelComparison> kernels;
};

// The plan that ran, remade on `planned` (the device with the kernel's CTAs per SM): stream-k at the traced grid and
// snap, fixed-split at its split count. A trace without a snap (written before traces recorded one) takes the rule's
// own snap at that grid if its walk gives every CTA the traced segments, else the snap the traced starts show (the
// farthest any start moved onto an output boundary). Throws InputError when no plan the planner makes walks as the
// trace did.
Schedule remake_traced_plan(const Problem& problem, const DeviceSpec& planned, const MeasuredKernel& measured);

TraceComparison compare_trace(const MeasuredTrace& trace, const DeviceSpec& device, const sim::KernelModel& kernel);

void write_trace_comparison_text(std::ostream& out, const TraceComparison& c);
nlohmann::ordered_json trace_comparison_json(const TraceComparison& c);
// Per strategy, one panel: every SM a row with the measured CTAs above and the simulated ones below, on one
// time axis; waits hatched grey, merges dark.
void write_trace_comparison_svg(std::ostream& out, const TraceComparison& c);

}  // namespace leanattn::app

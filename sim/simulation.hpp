// simulation.hpp — a plan played out on a model of its device: makespan, occupancy, per-SM timeline.
//
// The plan's device says the GPU (SMs, CTAs per SM, bandwidth); the kernel model (sim/kernel_model.hpp) what
// the kernel costs on it. The first launch begins launch_ns after time 0, fixed-split's reduce kernel
// reduce_launch_ns after the split kernel ends. Stream-k's reductions happen inside its one launch.
// The model and every parameter: docs/simulator.md and data/devices/README.md.
#pragma once

#include <cstdint>
#include <vector>

#include "core/schedule.hpp"
#include "kernel_model.hpp"
#include "sm_timeline.hpp"

namespace leanattn::sim {

struct SimOptions {
    std::int64_t bytes_per_element = 2;  // K and V element size: fp16/bf16 2, fp32 4
    bool record_timeline = false;        // keep per-SM intervals (pictures); totals are always kept
    const KernelModel* kernel = nullptr; // the kernel that runs the plan; null: the paper's (paper_kernel of the plan's device)
};

struct SimResult {
    Strategy strategy = Strategy::stream_k;
    std::int64_t sms = 0;
    std::int64_t grid = 0;
    std::int64_t launches = 1;
    std::int64_t splits = 1;
    std::int64_t waves = 0;         // ⌈grid / (SMs × CTAs per SM)⌉ of the main launch
    double makespan_ns = 0.0;       // from the first launch to the last CTA's end
    double kv_bytes = 0.0;          // K and V bytes read
    double busy_sm_ns = 0.0;        // SM-time with a CTA computing, streaming or storing its own output
    double reduce_sm_ns = 0.0;      // SM-time on partial stores, merges, the reduce kernel
    double waiting_sm_ns = 0.0;     // SM-time whose CTAs only wait for peers' flags
    double idle_sm_ns = 0.0;        // SM-time with no CTA (launch gaps, tails)
    double reduce_launch_gap_ns = 0.0;  // fixed-split: the second launch's overhead (all SMs idle)
    std::vector<std::vector<SmInterval>> timeline;  // per SM (when recorded)
    std::vector<CtaSpan> ctas;                      // the main launch's CTAs, by id (when recorded)
    std::vector<StreamSpan> streams;                // the main launch's stream phases (when recorded)
    double main_launch_start_ns = 0.0;              // when the main launch's first CTA started

    double sm_time_ns() const { return static_cast<double>(sms) * makespan_ns; }
    // Busy SM-time / (SMs × makespan), reduction work included (the definition the JSON output promises).
    double occupancy() const { return (busy_sm_ns + reduce_sm_ns) / sm_time_ns(); }
    double idle_sm_fraction() const { return idle_sm_ns / sm_time_ns(); }
    double waiting_fraction() const { return waiting_sm_ns / sm_time_ns(); }
    // SM-time that exists only because outputs were split: partial stores, merges, waiting for peers, and
    // the reduce launch with its gap, over SMs × makespan.
    double reduction_share() const {
        return (reduce_sm_ns + waiting_sm_ns + static_cast<double>(sms) * reduce_launch_gap_ns) / sm_time_ns();
    }
    double kv_gb_per_s() const { return kv_bytes / makespan_ns; }  // bytes/ns = GB/s
};

// Throws InputError for a bad element size. (A plan that could deadlock cannot exist: make_schedule refuses it.)
SimResult simulate(const Schedule& schedule, const SimOptions& options = {});

// Plans (make_schedule, with `plan`'s splits/grid, on device_for_kernel when options name a kernel) and
// simulates each of `strategies`, in their order.
std::vector<SimResult> simulate_strategies(const Problem& problem, const DeviceSpec& device, const PlanOptions& plan,
                                           const std::vector<Strategy>& strategies, const SimOptions& options = {});

}  // namespace leanattn::sim

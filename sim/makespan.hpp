// makespan.hpp — a plan's simulated time and nothing else, fast: what `--strategy auto` weighs plans with.
//
// simulate() (simulation.hpp) keeps every SM's states for the pictures and the occupancy figures; choosing a
// plan needs only when the last CTA ends. With one CTA per SM (every fitted kernel model) that needs far
// fewer steps: every streaming SM of a partition reads on one virtual clock V (dV/dt = 1 / loaded latency),
// so a stream's end is a fixed point on V that never moves, and a CTA's work between two streams (stores,
// merges, set-up) and its waits for peers are added up at once instead of played step by step. Two kinds
// of event remain: a stream starts (on the time axis) and a stream ends (on V). The same memory law, the
// same CTA programs (cta_program.hpp), the same dispatch order: the makespan equals simulate()'s up to
// rounding (tests/sim/test_makespan.cpp holds them to 1e-9).
//
// Faster still, and the same makespan:
//  - CTAs of one program share it (SharedLaunch): no-split, fixed-split and the reduce kernel build a few programs
//    however many CTAs they launch;
//  - one wave of one stream per CTA (no-split or fixed-split on at most one CTA per SM, a small reduce kernel):
//    every stream starts at once and they end in the order of their points on V, a sort instead of heaps;
//  - a slot of CTAs alike takes the next one when it is known to free, not when it frees: one event fewer a CTA;
//  - stream starts go to a queue (they mostly come due in the order they are booked), the rest to a heap.
// On the held-out H100 sweep (one core): a no-split plan 2 us at the median, fixed-split 40, stream-k 20 (plus 12 to
// build its per-CTA programs); 40-100 ns per event.
//
// makespan_below() also gives up on a plan once a lower bound shows it cannot end before a limit: what weighing a
// plan against a faster one needs (strategy_choice.hpp).
#pragma once

#include <cstdint>
#include <memory>

#include "core/schedule.hpp"
#include "cta_program.hpp"
#include "kernel_model.hpp"
#include "memory_model.hpp"

namespace leanattn::sim {

// A plan's makespan, or a lower bound of it that showed it would reach a limit.
struct BoundedMakespan {
    double ns = 0.0;         // simulated: the makespan; otherwise a lower bound of it, at least the limit
    bool simulated = true;
};

// A kernel on a device, ready to time plans for it: the memory law is tabulated once (it costs more than
// playing a small plan), so a caller weighing many plans keeps one of these. It keeps its buffers between plans
// too: one model per thread.
class MakespanModel {
public:
    MakespanModel(const KernelModel& kernel, const DeviceSpec& device);
    ~MakespanModel();
    MakespanModel(const MakespanModel&) = delete;
    MakespanModel& operator=(const MakespanModel&) = delete;

    // The makespan simulate(schedule, {bytes_per_element, false, &kernel}) returns, in ns, for a plan made for
    // this device (device_for_kernel). Kernels of more than one CTA per SM go through simulate()'s own engine
    // (their SMs split a rate among CTAs).
    double makespan_ns(const Schedule& schedule, std::int64_t bytes_per_element) const;

    // The same, unless the makespan is shown to be limit_ns or more first: then a lower bound of it (at least
    // limit_ns), found before the plan is played (its CTAs' programs at the fastest rate any SM reads, the SMs'
    // time and the HBM's most bytes per ns) or while it is (the same bound on what has not started yet). What
    // weighing a plan against a faster one needs; one CTA per SM only (others are played whole).
    BoundedMakespan makespan_below(const Schedule& schedule, std::int64_t bytes_per_element, double limit_ns) const;

    // A lower bound of the makespan of any plan of exactly `ctas` CTAs that reads `bytes` (at least the problem's K and
    // V, whatever the plan): one launch, then those bytes read by at most min(ctas, SMs) SMs at the memory law's most
    // bytes per ns beside each CTA's set-up, and at least the mean share of them read by one CTA at the fastest SM's
    // rate alone after its set-up. No plan is needed, so a candidate it rules out need not be made. Not a bound for
    // fewer CTAs (their set-ups are counted), so only for plans whose grid is known before they are made.
    double lower_bound_ns(double bytes, std::int64_t ctas) const;

    // Whether this model times plans of `kernel` on `device`.
    bool models(const KernelModel& kernel, const DeviceSpec& device) const;
    const KernelModel& kernel() const { return kernel_; }

private:
    class LowerBound;
    class Player;
    // The plan's main launch (or its reduce launch) from start_ns, given up at limit_ns.
    BoundedMakespan play(const Schedule& schedule, bool reduce, std::int64_t bytes_per_element, double start_ns, double limit_ns) const;

    // A memory law, the bounds and the player that read plans with it.
    struct Law {
        Law(const KernelModel& kernel, const DeviceSpec& device, bool narrow_streams);
        ~Law();
        MemoryModel memory;
        std::unique_ptr<LowerBound> bound;
        std::unique_ptr<Player> player;
    };
    const Law& law(const Schedule& schedule) const { return schedule.narrow_streams && narrow_ != nullptr ? *narrow_ : wide_; }

    KernelModel kernel_;
    DeviceSpec device_;
    Law wide_;                     // plans read with all the kernel's warps
    std::unique_ptr<Law> narrow_;  // with half (Schedule::narrow_streams), where the kernel's law differs: no idle SMs' loss
    mutable SharedLaunch launch_;  // the launch being played, its buffers kept
};

// One plan, once: MakespanModel(kernel, schedule.device).makespan_ns(schedule, bytes_per_element).
double simulated_makespan_ns(const Schedule& schedule, const KernelModel& kernel, std::int64_t bytes_per_element);

}  // namespace leanattn::sim

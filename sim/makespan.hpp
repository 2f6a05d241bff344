// makespan.hpp — a plan's simulated time and nothing else, fast: what `--strategy auto` weighs plans with.
//
// simulate() (simulation.hpp) keeps every SM's states for the pictures and the occupancy figures; choosing a
// plan needs only when the last CTA ends. With one CTA per SM (every fitted kernel model) that needs far
// fewer steps: every streaming SM of a partition reads on one virtual clock V (dV/dt = 1 / loaded latency),
// so a stream's end is a fixed point on V that never moves, and a CTA's work between two streams (stores,
// merges, set-up) and its waits for peers are added up at once instead of played step by step. Two kinds
// of event remain: a stream starts (on the time axis) and a stream ends (on V). The same memory law, the
// same CTA programs (cta_program.hpp), the same dispatch order: the makespan equals simulate()'s up to
// rounding (tests/test_sim_makespan.cpp holds them to 1e-9).
#pragma once

#include <cstdint>

#include "core/schedule.hpp"
#include "kernel_model.hpp"
#include "memory_model.hpp"

namespace leanattn::sim {

// A kernel on a device, ready to time plans for it: the memory law is tabulated once (it costs more than
// playing a small plan), so a caller weighing many plans keeps one of these.
class MakespanModel {
public:
    MakespanModel(const KernelModel& kernel, const DeviceSpec& device);

    // The makespan simulate(schedule, {bytes_per_element, false, &kernel}) returns, in ns, for a plan made for
    // this device (device_for_kernel). Kernels of more than one CTA per SM go through simulate()'s own engine
    // (their SMs split a rate among CTAs).
    double makespan_ns(const Schedule& schedule, std::int64_t bytes_per_element) const;

    const KernelModel& kernel() const { return kernel_; }

private:
    KernelModel kernel_;
    MemoryModel memory_;
};

// One plan, once: MakespanModel(kernel, schedule.device).makespan_ns(schedule, bytes_per_element).
double simulated_makespan_ns(const Schedule& schedule, const KernelModel& kernel, std::int64_t bytes_per_element);

}  // namespace leanattn::sim

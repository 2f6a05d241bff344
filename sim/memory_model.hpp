// memory_model.hpp — how fast an SM streams K and V, given how many SMs of its HBM partition stream too.
//
// Little's law (core/loaded_latency.hpp, shared with the planner's cost model): an SM with
// `bytes_in_flight_per_sm` outstanding reads at bytes_in_flight / L, where the loaded latency L grows
// with W, the bytes every streaming SM of the partition keeps in flight:
//     L(W) = (L0^p + (W / B)^p)^(1/p)        L0 = mem_latency_ns, B = partition bandwidth (bytes/ns)
// so a partition reads W / L(W) ≤ B in all. p = 1 (queue behind a pipe) approaches B smoothly: on an
// H100, one SM reads 0.23 TB/s, 64 SMs 2.8 TB/s, all 132 SMs 3.0 TB/s of the 3.35 TB/s peak. Large p is
// the hard knee min(per-SM cap, fair share of B). The CTAs streaming on one SM share its rate equally.
#pragma once

#include <cstdint>
#include <vector>

#include "core/device_spec.hpp"
#include "kernel_model.hpp"

namespace leanattn::sim {

class MemoryModel {
public:
    // idle_sms_bandwidth_loss: B falls to B · (1 − loss · (1 − m / n)) while m of a partition's n SMs stream
    // (KernelModel::idle_sms_bandwidth_loss); 0: B whatever m.
    MemoryModel(const DeviceTiming& timing, std::int64_t sms, double idle_sms_bandwidth_loss = 0.0);

    std::int64_t sms() const { return sms_; }
    std::int64_t partitions() const { return partitions_; }
    // SMs are split evenly and contiguously: SM s reads partition s · partitions / sms.
    std::int64_t partition_of(std::int64_t sm) const { return sm * partitions_ / sms_; }
    double bytes_in_flight_per_sm() const { return in_flight_; }
    // Bytes SM `sm` reads per unit of its partition's virtual clock S (dS/dt = 1 / loaded latency): its bytes in
    // flight over its latency factor (1 unless set_sm_latency_spread made SMs unequal).
    double sm_bytes_per_s(std::int64_t sm) const { return factor_.empty() ? in_flight_ : in_flight_ / factor_[static_cast<std::size_t>(sm)]; }
    // SMs see unequal latencies (farther from the memory controllers, or queued behind others): SM s's latency
    // is the partition's × (1 + spread · u_s), u_s spread evenly over [0, 1) in a fixed order unrelated to s
    // (u_s = frac(s · golden ratio)). Under equal shares the waves of equal CTAs stay in lockstep; on a GPU
    // the faster SMs take more CTAs and the tail shrinks.
    void set_sm_latency_spread(double spread);
    // Loaded latency (ns) while `streaming_sms` SMs of one partition stream (tabulated: exact and fast).
    double loaded_latency_ns(std::int64_t streaming_sms) const { return latency_[static_cast<std::size_t>(streaming_sms)]; }
    // One streaming SM's read rate in bytes/ns (= GB/s) while `streaming_sms` SMs of its partition stream.
    double sm_bytes_per_ns(std::int64_t streaming_sms) const { return in_flight_ / loaded_latency_ns(streaming_sms); }

private:
    std::int64_t sms_;
    std::int64_t partitions_;
    double in_flight_;
    std::vector<double> latency_;  // (largest partition's SMs + 1)
    std::vector<double> factor_;   // per SM; empty: all 1
};

// The memory law `kernel` reads `device` with: the GPU's SMs and partitions, the kernel's bandwidth
// (kernel_bandwidth_gb_per_s), latency, bytes in flight, knee and SMs' latency spread. `narrow_streams`: the law of a
// plan the kernel reads with half its warps (Schedule::narrow_streams), which draws the full bandwidth on part of the
// SMs: no idle SMs' loss, and the kernel's narrow_in_flight_fraction of its bytes in flight. Measured on an H100 (bench/NOTES.md, "v31"), the fitted models with the loss predicted such
// no-split plans read with 8 warps within 1% (50.1-76.2 us against 50.9-76.0), and with it set to 0 the same plans
// read with 4 (46.2-73.0 against 46.2-73.5).
MemoryModel kernel_memory_model(const KernelModel& kernel, const DeviceSpec& device, bool narrow_streams = false);

}  // namespace leanattn::sim

// device_spec.hpp — what the planner and the simulator know of a GPU (data/devices/*.json).
//
// core/ never queries a GPU: SM count and CTAs per SM arrive as a value (a file, or a query made in
// cuda/), so every plan is testable without one. The timing fields are the simulator's model
// parameters; each carries its unit in its name and is documented in data/devices/README.md.
#pragma once

#include <cstdint>
#include <string>

namespace leanattn {

struct DeviceTiming {
    double hbm_bandwidth_gb_per_s = 3000.0;    // sustained read bandwidth all SMs share (GB/s = 1e9 B/s)
    double mem_latency_ns = 260.0;             // unloaded DRAM latency seen by one SM
    double bytes_in_flight_per_sm = 65536.0;   // bytes one SM keeps in flight: caps one SM at this / latency
    double tile_compute_ns = 50.0;             // fixed per-LeanTile compute (QKᵀ, softmax, PV) beyond streaming
    double cta_startup_ns = 500.0;             // a CTA's prologue: load Q, set up accumulators
    double partial_store_ns = 300.0;           // a non-host CTA stores un-scaled O, m, l and signals its flag
    double flag_wait_ns = 300.0;               // a host observing one peer's flag (acquire round trip)
    double reduce_per_partial_ns = 300.0;      // a host loading and merging one peer's partial
    double launch_overhead_ns = 4000.0;        // one kernel launch (fixed-split pays a second for its reduce)
};

struct DeviceSpec {
    std::string name = "h100-sxm";
    std::string description;
    std::int64_t sms = 132;
    std::int64_t ctas_per_sm = 2;
    DeviceTiming timing;

    // CTAs that can be resident at once: a host may only wait on CTAs within this many (DESIGN.md).
    std::int64_t resident_ctas() const { return sms * ctas_per_sm; }
};

}  // namespace leanattn

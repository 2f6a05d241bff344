// loaded_latency.hpp — Little's law for HBM: how long a load takes while many SMs stream at once.
//
// Each streaming SM keeps `bytes_in_flight_per_sm` outstanding, so it reads at bytes_in_flight / L, where the
// loaded latency L grows with W, the bytes all streaming SMs of one HBM partition keep in flight:
//     L = (L0^p + (W / B)^p)^(1/p)        L0 = mem_latency_ns, B = the partition's bandwidth (bytes/ns)
// The simulator (sim/memory_model.hpp) plays it out event by event; the planner's cost model
// (core/stream_k_cost.hpp) reads it once per plan. One formula for both.
#pragma once

#include <algorithm>
#include <cmath>

#include "device_spec.hpp"

namespace leanattn {

inline double loaded_latency_ns(const DeviceTiming& t, double streaming_sms, double partition_bytes_per_ns) {
    const double queue = streaming_sms * t.bytes_in_flight_per_sm / partition_bytes_per_ns;  // W / B
    const double p = t.latency_knee_exponent;
    // p = 1 is kept exact (no pow) so hand-worked tests see the plain sum L0 + W/B; otherwise the p-norm is
    // scaled by its larger term so that p up to 64 cannot overflow.
    if (p == 1.0) return t.mem_latency_ns + queue;
    const double big = std::max(t.mem_latency_ns, queue);
    if (big <= 0.0) return 0.0;
    return big * std::pow(std::pow(t.mem_latency_ns / big, p) + std::pow(queue / big, p), 1.0 / p);
}

}  // namespace leanattn

#include "memory_model.hpp"

#include <algorithm>
#include <cmath>

namespace leanattn::sim {

MemoryModel::MemoryModel(const DeviceTiming& t, std::int64_t sms)
    : sms_(sms), partitions_(std::clamp<std::int64_t>(t.hbm_partitions, 1, sms)), in_flight_(t.bytes_in_flight_per_sm) {
    const double bandwidth = t.hbm_bandwidth_gb_per_s / static_cast<double>(partitions_);  // bytes/ns per partition
    const double p = t.latency_knee_exponent;
    const std::int64_t largest = (sms + partitions_ - 1) / partitions_;
    latency_.resize(static_cast<std::size_t>(largest + 1));
    for (std::int64_t n = 0; n <= largest; ++n) {
        const double queue = static_cast<double>(n) * in_flight_ / bandwidth;  // W / B
        // p = 1 is kept exact (no pow) so hand-worked tests see the plain sum L0 + W/B; otherwise the
        // p-norm is scaled by its larger term so that p up to 64 cannot overflow.
        const double big = std::max(t.mem_latency_ns, queue);
        latency_[static_cast<std::size_t>(n)] =
            p == 1.0 ? t.mem_latency_ns + queue
                     : big * std::pow(std::pow(t.mem_latency_ns / big, p) + std::pow(queue / big, p), 1.0 / p);
    }
}

}  // namespace leanattn::sim

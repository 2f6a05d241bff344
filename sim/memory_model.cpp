#include "memory_model.hpp"

#include <algorithm>

#include "core/loaded_latency.hpp"

namespace leanattn::sim {

MemoryModel::MemoryModel(const DeviceTiming& t, std::int64_t sms)
    : sms_(sms), partitions_(std::clamp<std::int64_t>(t.hbm_partitions, 1, sms)), in_flight_(t.bytes_in_flight_per_sm) {
    const double bandwidth = t.hbm_bandwidth_gb_per_s / static_cast<double>(partitions_);  // bytes/ns per partition
    const std::int64_t largest = (sms + partitions_ - 1) / partitions_;
    latency_.resize(static_cast<std::size_t>(largest + 1));
    for (std::int64_t n = 0; n <= largest; ++n) latency_[static_cast<std::size_t>(n)] = leanattn::loaded_latency_ns(t, static_cast<double>(n), bandwidth);
}

}  // namespace leanattn::sim

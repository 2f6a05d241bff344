#include "memory_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/loaded_latency.hpp"

namespace leanattn::sim {

MemoryModel::MemoryModel(const DeviceTiming& t, std::int64_t sms, double idle_sms_bandwidth_loss)
    : sms_(sms), partitions_(std::clamp<std::int64_t>(t.hbm_partitions, 1, sms)), in_flight_(t.bytes_in_flight_per_sm) {
    const double bandwidth = t.hbm_bandwidth_gb_per_s / static_cast<double>(partitions_);  // bytes/ns per partition
    const std::int64_t largest = (sms + partitions_ - 1) / partitions_;
    latency_.resize(static_cast<std::size_t>(largest + 1));
    for (std::int64_t n = 0; n <= largest; ++n) {
        const double idle = 1.0 - static_cast<double>(n) / static_cast<double>(largest);
        latency_[static_cast<std::size_t>(n)] = leanattn::loaded_latency_ns(t, static_cast<double>(n), bandwidth * (1.0 - idle_sms_bandwidth_loss * idle));
    }
}

void MemoryModel::set_sm_latency_spread(double spread) {
    factor_.clear();
    if (spread <= 0.0) return;
    factor_.resize(static_cast<std::size_t>(sms_));
    for (std::int64_t s = 0; s < sms_; ++s) {
        const double u = std::fmod(static_cast<double>(s) * 0.6180339887498949, 1.0);
        factor_[static_cast<std::size_t>(s)] = 1.0 + spread * u;
    }
}

MemoryModel kernel_memory_model(const KernelModel& kernel, const DeviceSpec& device, bool narrow_streams) {
    DeviceTiming law = device.timing;  // the GPU's partitions; the rest of the law is the kernel's
    law.hbm_bandwidth_gb_per_s = kernel_bandwidth_gb_per_s(kernel, device);
    law.mem_latency_ns = kernel.stream_latency_ns;
    law.bytes_in_flight_per_sm = kernel.bytes_in_flight_per_sm * (narrow_streams ? kernel.narrow_in_flight_fraction : 1.0);
    law.latency_knee_exponent = kernel.latency_knee_exponent;
    MemoryModel memory(law, device.sms, narrow_streams ? 0.0 : kernel.idle_sms_bandwidth_loss);
    memory.set_sm_latency_spread(kernel.sm_latency_spread);
    return memory;
}

}  // namespace leanattn::sim

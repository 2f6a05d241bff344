#include "device_spec.hpp"

#include <sstream>
#include <string>

#include "input_error.hpp"

namespace leanattn {

bool operator==(const DeviceTiming&, const DeviceTiming&) = default;
bool operator==(const DeviceSpec&, const DeviceSpec&) = default;

namespace {

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

// lo ≤ value ≤ hi, false for NaN. The bounds keep the simulator's clock finite and moving: with a
// bandwidth of 1e-300 GB/s a LeanTile would take longer than a double can count, and the event order breaks.
void require_range(double value, double lo, double hi, const char* key, const char* unit) {
    if (lo <= value && value <= hi) return;
    throw InputError({{key, number(value)}}, "must lie in [" + number(lo) + ", " + number(hi) + "]" + unit);
}

}  // namespace

void check_device(const DeviceSpec& d) {
    if (d.sms < 1 || d.sms > max_device_sms) {
        throw InputError({{"sms", std::to_string(d.sms)}}, "must lie in 1.." + std::to_string(max_device_sms) + " (device " + d.name + ")");
    }
    if (d.ctas_per_sm < 1 || d.ctas_per_sm > max_ctas_per_sm) {
        throw InputError({{"ctas_per_sm", std::to_string(d.ctas_per_sm)}}, "must lie in 1.." + std::to_string(max_ctas_per_sm) + " (device " + d.name + ")");
    }
    const DeviceTiming& t = d.timing;
    if (t.hbm_partitions < 1 || t.hbm_partitions > d.sms) {
        throw InputError({{"hbm_partitions", std::to_string(t.hbm_partitions)}}, "must lie in 1..sms (" + std::to_string(d.sms) + ")");
    }
    require_range(t.hbm_bandwidth_gb_per_s, 1e-3, 1e12, "hbm_bandwidth_gb_per_s", " GB/s");
    if (d.copy_bandwidth_gb_per_s != 0.0) require_range(d.copy_bandwidth_gb_per_s, 1e-3, 1e12, "copy_bandwidth_gb_per_s", " GB/s (or 0: not known)");
    require_range(t.mem_latency_ns, 1e-3, 1e9, "mem_latency_ns", " ns");
    require_range(t.bytes_in_flight_per_sm, 1.0, 1e12, "bytes_in_flight_per_sm", " bytes");
    require_range(t.latency_knee_exponent, 1.0, 64.0, "latency_knee_exponent", "");
    require_range(t.row_block_reread, 0.0, 1.0, "row_block_reread", " (a share of the bytes)");
    const std::pair<double, const char*> costs[] = {{t.tile_compute_ns, "tile_compute_ns"},       {t.cta_startup_ns, "cta_startup_ns"},
                                                    {t.partial_store_ns, "partial_store_ns"},     {t.output_store_ns, "output_store_ns"},
                                                    {t.flag_wait_ns, "flag_wait_ns"},             {t.reduce_per_partial_ns, "reduce_per_partial_ns"},
                                                    {t.launch_overhead_ns, "launch_overhead_ns"}};
    for (const auto& [value, key] : costs) require_range(value, 0.0, 1e9, key, " ns");
}

}  // namespace leanattn

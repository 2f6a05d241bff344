// The memory model's anchors: an H100 SM with 64 KB in flight reads about 0.25 TB/s; 64 SMs come close to
// the ~3.0 TB/s that all 132 reach; no number of SMs exceeds the peak.
#include <catch2/catch.hpp>

#include "core/device_spec.hpp"
#include "sim/memory_model.hpp"

using namespace leanattn;
using Catch::Detail::Approx;

TEST_CASE("H100 (the DeviceTiming defaults): one SM, 64 SMs and 132 SMs read 0.25, 2.8 and 3.0 TB/s") {
    const DeviceTiming t;  // h100-sxm's values
    const sim::MemoryModel m(t, 132);
    auto total_tb_per_s = [&](std::int64_t n) { return static_cast<double>(n) * m.sm_bytes_per_ns(n) / 1000.0; };
    CHECK(total_tb_per_s(1) == Approx(0.25).epsilon(0.1));
    CHECK(total_tb_per_s(64) == Approx(2.8).epsilon(0.05));
    CHECK(total_tb_per_s(132) == Approx(3.0).epsilon(0.03));
    // By hand for one SM: 65,536 / (260 + 65,536 / 3,350) = 234.0 GB/s.
    CHECK(m.sm_bytes_per_ns(1) == Approx(65536.0 / (260.0 + 65536.0 / 3350.0)).epsilon(1e-12));
}

TEST_CASE("the HBM never delivers more than its peak, and more streaming SMs never deliver less in all") {
    for (double p : {1.0, 2.0, 8.0, 64.0}) {
        DeviceTiming t;
        t.latency_knee_exponent = p;
        const sim::MemoryModel m(t, 132);
        double previous = 0.0;
        for (std::int64_t n = 1; n <= 132; ++n) {
            CAPTURE(p, n);
            const double total = static_cast<double>(n) * m.sm_bytes_per_ns(n);
            CHECK(total <= t.hbm_bandwidth_gb_per_s * (1.0 + 1e-12));
            CHECK(total >= previous * (1.0 - 1e-12));
            CHECK(m.sm_bytes_per_ns(n) <= t.bytes_in_flight_per_sm / t.mem_latency_ns * (1.0 + 1e-12));
            previous = total;
        }
    }
}

TEST_CASE("a sharp knee approaches min(per-SM cap, fair share of the HBM)") {
    DeviceTiming t;
    t.latency_knee_exponent = 64.0;
    const sim::MemoryModel m(t, 132);
    const double cap = t.bytes_in_flight_per_sm / t.mem_latency_ns;
    for (std::int64_t n : {1, 4, 13, 40, 132}) {
        CAPTURE(n);
        CHECK(m.sm_bytes_per_ns(n) == Approx(std::min(cap, t.hbm_bandwidth_gb_per_s / static_cast<double>(n))).epsilon(0.02));
    }
}

TEST_CASE("idle_sms_bandwidth_loss: past the knee m of n SMs draw B · (1 − loss · (1 − m/n)): all n draw B, and 0 changes nothing") {
    DeviceTiming t;
    t.latency_knee_exponent = 64.0;  // a sharp knee: past it the SMs draw the bandwidth the law allows, no less
    const sim::MemoryModel plain(t, 132), zero(t, 132, 0.0), lossy(t, 132, 0.2);
    const auto total = [](const sim::MemoryModel& m, std::int64_t n) { return static_cast<double>(n) * m.sm_bytes_per_ns(n); };
    for (std::int64_t n = 0; n <= 132; ++n) CHECK(zero.loaded_latency_ns(n) == plain.loaded_latency_ns(n));
    CHECK(total(lossy, 132) == Approx(total(plain, 132)).epsilon(1e-12));  // every SM streams: nothing idles
    for (std::int64_t n : {66, 99}) {
        CAPTURE(n);
        const double idle = 1.0 - static_cast<double>(n) / 132.0;
        CHECK(total(lossy, n) == Approx(t.hbm_bandwidth_gb_per_s * (1.0 - 0.2 * idle)).epsilon(0.02));
        CHECK(total(lossy, n) < total(plain, n));
    }
    // Below the knee one SM reads at its own cap, which the HBM's rate does not limit.
    CHECK(lossy.sm_bytes_per_ns(1) == Approx(plain.sm_bytes_per_ns(1)).epsilon(1e-3));
}

TEST_CASE("8 partitions: SMs split evenly and contiguously, each partition with an eighth of the bandwidth") {
    DeviceTiming t;
    t.hbm_partitions = 8;
    t.hbm_bandwidth_gb_per_s = 8 * 2039.0;
    const sim::MemoryModel m(t, 864);
    CHECK(m.partition_of(0) == 0);
    CHECK(m.partition_of(107) == 0);
    CHECK(m.partition_of(108) == 1);
    CHECK(m.partition_of(863) == 7);
    CHECK(108.0 * m.sm_bytes_per_ns(108) <= 2039.0);
}

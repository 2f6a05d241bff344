#include "kernel_model.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "core/input_error.hpp"

namespace leanattn::sim {

KernelModel paper_kernel(const DeviceSpec& device) {
    const DeviceTiming& t = device.timing;
    KernelModel k;
    k.name = "paper";
    k.description = "Algorithm 2 as written, with the device file's timing keys";
    k.ctas_per_sm = device.ctas_per_sm;
    k.bytes_in_flight_per_sm = t.bytes_in_flight_per_sm;
    k.stream_latency_ns = t.mem_latency_ns;
    k.latency_knee_exponent = t.latency_knee_exponent;
    k.bandwidth_over_copy = 0.0;  // the device's peak
    k.compute_overlaps_loads = false;
    k.tile_compute_ns = t.tile_compute_ns;
    k.launch_ns = t.launch_overhead_ns;
    k.cta_setup_ns = t.cta_startup_ns;
    k.partial_store_ns = t.partial_store_ns;
    k.output_store_ns = t.output_store_ns;
    k.merge = MergeOrder::serial;
    k.merge_ns = t.flag_wait_ns;
    k.merge_ns_per_partial = t.reduce_per_partial_ns;
    k.reduce_launch_ns = t.launch_overhead_ns;
    k.reduce_cta_ns = t.cta_startup_ns;
    return k;
}

double kernel_bandwidth_gb_per_s(const KernelModel& kernel, const DeviceSpec& device) {
    if (!kernel.uses_copy_bandwidth()) return device.timing.hbm_bandwidth_gb_per_s;
    if (device.copy_bandwidth_gb_per_s <= 0.0) {
        throw InputError({{"device", device.name}, {"kernel", kernel.name}},
                         "the kernel model scales the device's measured copy bandwidth, and the device file has no \"copy_bandwidth_gb_per_s\"");
    }
    return device.copy_bandwidth_gb_per_s * kernel.bandwidth_over_copy;
}

DeviceSpec device_for_kernel(const DeviceSpec& device, const KernelModel& kernel) {
    DeviceSpec d = device;
    if (kernel.ctas_per_sm > 0) d.ctas_per_sm = kernel.ctas_per_sm;
    return d;
}

std::int64_t padded_rows(const KernelModel& kernel, std::int64_t rows, std::int64_t head_dim) {
    if (kernel.tensor_core_rows_min <= 1) return rows;  // a kernel that computes exactly its rows
    if (rows == 1 && head_dim != 96) return 1;
    std::int64_t padded = kernel.tensor_core_rows_min;
    while (padded < rows) padded *= 2;
    return padded;
}

int kernel_path(const Problem& p) {
    const bool one_row = p.kernel_tile_rows() == 1;  // the CUDA-core kernel: one-row tiles of one new token
    switch (p.head_dim) {
        case 64: return one_row ? 1 : 0;
        case 96: return 2;
        case 128: return one_row ? 4 : 3;
        case 256: return one_row ? 6 : 5;
        default: return -1;
    }
}

int costed_path(const Problem& p) {
    Problem padded = p;
    for (const std::int64_t d : {64, 96, 128, 256}) {
        padded.head_dim = d;
        if (p.head_dim <= d) break;
    }
    return kernel_path(padded);
}

ComputeCost::ComputeCost(const KernelModel& kernel, const Problem& problem, std::int64_t bytes_per_element)
    : kernel_(kernel), rows_(static_cast<double>(padded_rows(kernel, problem.kernel_tile_rows(), problem.head_dim))), head_dim_(static_cast<double>(problem.head_dim)),
      token_bytes_(static_cast<double>(problem.head_dim * 2 * bytes_per_element)), path_(costed_path(problem)) {}

double ComputeCost::ns(double tokens) const {
    const double scores = rows_ * tokens;
    const double kb = tokens * token_bytes_ / 1024.0;
    return scores / 1024.0 * kernel_.compute_ns_per_kscore + 2.0 * scores * head_dim_ / 1e6 * kernel_.compute_ns_per_mmac +
           kb * kernel_.cta_ns_per_kb_by_path[path_];
}

double compute_ns(const KernelModel& kernel, const Problem& problem, double tokens, std::int64_t bytes_per_element) {
    return ComputeCost(kernel, problem, bytes_per_element).ns(tokens);
}

double partial_bytes(const Problem& problem) {
    return static_cast<double>(problem.block_rows() * (problem.head_dim + 2) * 4);
}

void check_bytes_per_element(std::int64_t bytes_per_element) {
    if (bytes_per_element != 1 && bytes_per_element != 2 && bytes_per_element != 4) {
        throw InputError("bytes per element " + std::to_string(bytes_per_element), "expected 1, 2 or 4");
    }
}

void check_kernel_model(const KernelModel& k) {
    const auto refuse = [&](const char* field, double value, const char* why) {
        char text[32];  // 6 significant digits: std::to_string wrote 1e300 as 300 digits
        std::snprintf(text, sizeof text, "%.6g", value);
        throw InputError({{"kernel", k.name}, {field, text}}, why);
    };
    const struct {
        const char* name;
        double value;
    } non_negative[] = {{"stream_latency_ns", k.stream_latency_ns},         {"bandwidth_over_copy", k.bandwidth_over_copy}, {"sm_latency_spread", k.sm_latency_spread},
                        {"compute_ns_per_kscore", k.compute_ns_per_kscore}, {"compute_ns_per_mmac", k.compute_ns_per_mmac}, {"tile_compute_ns", k.tile_compute_ns},
                        {"compute_drain_tokens", k.compute_drain_tokens},
                        {"launch_ns", k.launch_ns},                         {"cta_setup_ns", k.cta_setup_ns}, {"plan_wait_ns", k.plan_wait_ns}, {"stream_k_walk_ns", k.stream_k_walk_ns},
                        {"segment_ns", k.segment_ns}, {"pipeline_fills_per_segment", k.pipeline_fills_per_segment},                       {"partial_store_ns", k.partial_store_ns},
                        {"partial_store_ns_per_kb", k.partial_store_ns_per_kb}, {"output_store_ns", k.output_store_ns},
                        {"merge_ns", k.merge_ns},                           {"merge_ns_per_partial", k.merge_ns_per_partial},
                        {"merge_ns_per_kb", k.merge_ns_per_kb},             {"reduce_launch_ns", k.reduce_launch_ns},
                        {"reduce_cta_ns", k.reduce_cta_ns},
                        {"reduce_ns_per_kb", k.reduce_ns_per_kb}};
    for (const auto& f : non_negative) {
        if (!std::isfinite(f.value) || f.value < 0.0 || f.value > 1e12) refuse(f.name, f.value, "must be a finite number in 0..1e12");
    }
    for (int i = 0; i < KernelModel::path_count; ++i) {
        const double v = k.cta_ns_per_kb_by_path[i];
        if (!(v >= 0.0 && v <= 1e9)) refuse(kernel_path_names[i], v, "cta_ns_per_kb_by_path: must lie in 0..1e9 ns");
    }
    // A kernel draws a share of the copy bandwidth of the order of one (1.10 fitted on an H100); a share far below it
    // starves the simulated streams until no event comes in a double's range.
    if (!(k.bandwidth_over_copy == 0.0 || (k.bandwidth_over_copy >= 0.01 && k.bandwidth_over_copy <= 100.0))) {
        refuse("bandwidth_over_copy", k.bandwidth_over_copy, "must be 0 (the device's peak) or lie in 0.01..100 (a share of the copy bandwidth)");
    }
    if (!(k.reread_fraction >= 0.0 && k.reread_fraction <= 1.0)) refuse("reread_fraction", k.reread_fraction, "must lie in 0..1");
    if (!(k.reread_lag_mb >= 0.0 && k.reread_lag_mb <= 1e6)) refuse("reread_lag_mb", k.reread_lag_mb, "must lie in 0..1e6 MB (0: the L2 is not aged)");
    if (!(k.idle_sms_bandwidth_loss >= 0.0 && k.idle_sms_bandwidth_loss < 1.0)) refuse("idle_sms_bandwidth_loss", k.idle_sms_bandwidth_loss, "must lie in 0..1 (1 excluded)");
    if (!(k.narrow_in_flight_fraction > 0.0 && k.narrow_in_flight_fraction <= 1.0)) refuse("narrow_in_flight_fraction", k.narrow_in_flight_fraction, "must lie in 0..1 (0 excluded)");
    if (!(k.compute_overlap_loss >= 0.0 && k.compute_overlap_loss <= 1.0)) refuse("compute_overlap_loss", k.compute_overlap_loss, "must lie in 0..1");
    if (!(k.bytes_in_flight_per_sm >= 1.0 && k.bytes_in_flight_per_sm <= 1e9)) refuse("bytes_in_flight_per_sm", k.bytes_in_flight_per_sm, "must lie in 1..1e9 bytes");
    if (!(k.stream_latency_ns > 0.0)) refuse("stream_latency_ns", k.stream_latency_ns, "must be above 0");
    if (!(k.latency_knee_exponent >= 1.0 && k.latency_knee_exponent <= 64.0)) refuse("latency_knee_exponent", k.latency_knee_exponent, "must lie in 1..64");
    if (k.ctas_per_sm < 0 || k.ctas_per_sm > max_ctas_per_sm) refuse("ctas_per_sm", static_cast<double>(k.ctas_per_sm), "must lie in 0..1024 (0: the device's)");
    if (k.tensor_core_rows_min < 1 || k.tensor_core_rows_min > 256) refuse("tensor_core_rows_min", static_cast<double>(k.tensor_core_rows_min), "must lie in 1..256");
    if (k.reduce_values_per_cta < 0 || k.reduce_values_per_cta > 1 << 20) {
        refuse("reduce_values_per_cta", static_cast<double>(k.reduce_values_per_cta), "must lie in 0..1048576 (0: one reduce CTA per output)");
    }
}

}  // namespace leanattn::sim

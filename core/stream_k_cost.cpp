#include "stream_k_cost.hpp"

#include <algorithm>

#include "loaded_latency.hpp"
#include "walker.hpp"

namespace leanattn {

StreamKCosts StreamKCosts::of(const Problem& p, const DeviceTiming& t) {
    StreamKCosts c;
    c.tile_bytes = static_cast<double>(p.tile * p.head_dim * 2 * 2);
    c.tile_compute_ns = static_cast<double>((p.q_len * p.group() + 15) / 16) * t.tile_compute_ns;
    c.startup_ns = t.cta_startup_ns;
    c.restart_ns = t.cta_startup_ns;
    c.partial_ns = t.partial_store_ns;
    c.merge_ns = t.flag_wait_ns + t.reduce_per_partial_ns;
    c.store_ns = t.output_store_ns;
    return c;
}

namespace {

// Estimates plan after plan, reusing its buffers: O(grid · log batch + SMs) each.
class Estimator {
public:
    Estimator(const Problem& problem, const DeviceSpec& device)
        : costs_(StreamKCosts::of(problem, device.timing)),
          device_(device),
          partitions_(std::clamp<std::int64_t>(device.timing.hbm_partitions, 1, device.sms)),
          partition_bytes_per_ns_(device.timing.hbm_bandwidth_gb_per_s / static_cast<double>(partitions_)) {}

    double operator()(const PlanView& v) {
        const std::int64_t grid = v.grid, sms = device_.sms;
        starts_.resize(static_cast<std::size_t>(grid + 1));
        for (std::int64_t g = 0; g <= grid; ++g) starts_[g] = plan::stream_k_start(v, g);

        // Which SMs stream, and how many CTAs share each.
        ctas_on_sm_.assign(static_cast<std::size_t>(std::min(sms, grid)), 0);
        streaming_sms_.assign(static_cast<std::size_t>(partitions_), 0);
        for (std::int64_t g = 0; g < grid; ++g) {
            if (starts_[g + 1] == starts_[g]) continue;
            const std::int64_t sm = g % sms;
            if (ctas_on_sm_[sm]++ == 0) ++streaming_sms_[partition_of(sm)];
        }
        sm_rate_.assign(static_cast<std::size_t>(partitions_), 0.0);
        for (std::int64_t part = 0; part < partitions_; ++part) {
            if (streaming_sms_[part] == 0) continue;
            const double latency = loaded_latency_ns(device_.timing, static_cast<double>(streaming_sms_[part]), partition_bytes_per_ns_);
            sm_rate_[part] = device_.timing.bytes_in_flight_per_sm / latency;
        }

        double worst = 0.0;
        for (std::int64_t g = 0; g < grid; ++g) {
            const std::int64_t begin = starts_[g], end = starts_[g + 1];
            if (end == begin) continue;
            const std::int64_t sm = g % sms;
            const double tiles = static_cast<double>(end - begin);
            const double stream_ns = tiles * costs_.tile_bytes * static_cast<double>(ctas_on_sm_[sm]) / sm_rate_[partition_of(sm)];
            double t = costs_.startup_ns + stream_ns + tiles * costs_.tile_compute_ns;

            const std::int64_t first = plan::output_of_iteration(v, begin), last = plan::output_of_iteration(v, end - 1);
            const std::int64_t last_end = plan::output_offset(v, last) + plan::output_tiles(v, last);
            const bool first_is_host = begin == plan::output_offset(v, first);
            t += static_cast<double>(last - first) * costs_.restart_ns;
            std::int64_t hosts = last - first + (first_is_host ? 1 : 0);  // every segment after the first starts its output
            if (!first_is_host) t += costs_.partial_ns;
            if (end < last_end && (first_is_host || last > first)) {
                // The last segment hosts a split output: its peers are the CTAs after g that start inside it.
                const auto holder = std::upper_bound(starts_.begin(), starts_.end(), last_end - 1) - starts_.begin() - 1;
                t += static_cast<double>(holder - g) * costs_.merge_ns;
            }
            t += static_cast<double>(hosts) * costs_.store_ns;
            worst = std::max(worst, t);
        }
        return worst;
    }

private:
    std::int64_t partition_of(std::int64_t sm) const { return sm * partitions_ / device_.sms; }

    StreamKCosts costs_;
    const DeviceSpec& device_;
    std::int64_t partitions_;
    double partition_bytes_per_ns_;
    std::vector<std::int64_t> starts_;         // (grid + 1)
    std::vector<std::int64_t> ctas_on_sm_;     // (min(SMs, grid)) non-empty CTAs per SM
    std::vector<std::int64_t> streaming_sms_;  // (partitions)
    std::vector<double> sm_rate_;              // (partitions) bytes/ns of one streaming SM
};

}  // namespace

double estimate_stream_k_ns(const PlanView& plan, const Problem& problem, const DeviceSpec& device) {
    Estimator estimate(problem, device);
    return estimate(plan);
}

std::vector<AlignedCandidate> aligned_candidates(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given) {
    std::int64_t n_max = 0;
    for (std::int64_t b = 0; b < plan.batch; ++b) n_max = std::max(n_max, plan.request_tiles[b]);
    std::vector<std::int64_t> grids = {plan.grid};
    const std::int64_t outputs = plan::outputs(plan);
    if (!grid_given && outputs < plan.grid) grids.push_back(outputs);

    Estimator estimate(problem, device);
    std::vector<AlignedCandidate> out;
    for (std::int64_t grid : grids) {
        for (std::int64_t snap = 0;; snap = snap == 0 ? 1 : std::min(2 * snap, n_max)) {
            PlanView v = plan;
            v.grid = grid;
            v.snap = snap;
            out.push_back({grid, snap, estimate(v)});
            if (snap >= n_max) break;
        }
    }
    return out;
}

AlignedCandidate choose_aligned(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given) {
    const std::vector<AlignedCandidate> all = aligned_candidates(plan, problem, device, grid_given);
    AlignedCandidate best = all.front();
    for (const AlignedCandidate& c : all) {
        if (c.estimate_ns < best.estimate_ns) best = c;
    }
    return best;
}

}  // namespace leanattn

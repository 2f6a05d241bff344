#include "stream_k_cost.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "loaded_latency.hpp"
#include "walker.hpp"

namespace leanattn {

StreamKCosts StreamKCosts::of(const Problem& p, const DeviceTiming& t) {
    StreamKCosts c;
    c.token_bytes = static_cast<double>(p.head_dim * 2 * 2);
    c.tile_compute_ns = static_cast<double>((p.q_len * p.group() + 15) / 16) * t.tile_compute_ns;
    c.startup_ns = t.cta_startup_ns;
    c.restart_ns = t.cta_startup_ns;
    c.partial_ns = t.partial_store_ns;
    c.flag_ns = t.flag_wait_ns;
    c.merge_ns = t.reduce_per_partial_ns;
    c.store_ns = t.output_store_ns;
    return c;
}

namespace {

// How long the SMs of one HBM partition take to read their bytes when they share it: SM loads sorted, and
// the time at which the SMs holding less than each load are done (processor sharing, per-SM rate r(m)).
class PartitionStream {
public:
    void clear() { loads_.clear(); }
    void add(double bytes) { loads_.push_back(bytes); }
    template <typename Rate>
    void solve(Rate&& sm_rate) {
        std::sort(loads_.begin(), loads_.end());
        times_.assign(loads_.size(), 0.0);
        double t = 0.0, done = 0.0;
        for (std::size_t j = 0; j < loads_.size(); ++j) {
            if (loads_[j] > done) t += (loads_[j] - done) / sm_rate(static_cast<std::int64_t>(loads_.size() - j));
            times_[j] = t, done = loads_[j];
        }
    }
    // When an SM of this partition has read `bytes`.
    template <typename Rate>
    double time_to_read(double bytes, Rate&& sm_rate) const {
        const std::size_t j = static_cast<std::size_t>(std::lower_bound(loads_.begin(), loads_.end(), bytes) - loads_.begin());
        const double before = j == 0 ? 0.0 : loads_[j - 1], t = j == 0 ? 0.0 : times_[j - 1];
        return j == loads_.size() ? t : t + (bytes - before) / sm_rate(static_cast<std::int64_t>(loads_.size() - j));
    }

private:
    std::vector<double> loads_;  // bytes of each streaming SM, ascending
    std::vector<double> times_;  // when the SM with loads_[j] finishes
};

// Estimates plan after plan, reusing its buffers: O(grid · log batch + SMs · log SMs) each.
class Estimator {
public:
    Estimator(const Problem& problem, const DeviceSpec& device)
        : problem_(problem),
          costs_(StreamKCosts::of(problem, device.timing)),
          device_(device),
          partitions_(std::clamp<std::int64_t>(device.timing.hbm_partitions, 1, device.sms)),
          partition_bytes_per_ns_(device.timing.hbm_bandwidth_gb_per_s / static_cast<double>(partitions_)),
          streams_(static_cast<std::size_t>(partitions_)) {}

    // Bytes per ns of one SM while `streaming` SMs of its partition stream.
    double sm_rate(std::int64_t streaming) const {
        return device_.timing.bytes_in_flight_per_sm / loaded_latency_ns(device_.timing, static_cast<double>(streaming), partition_bytes_per_ns_);
    }

    // A lower bound for any plan on `grid` CTAs: all bytes read by min(grid, SMs) SMs spread evenly over the
    // partitions (the most bandwidth they can draw: rate grows with SMs, concavely), plus one startup.
    double bound_ns(std::int64_t grid) const {
        const double sms = static_cast<double>(std::min(grid, device_.sms));
        const double per_partition = sms / static_cast<double>(partitions_);
        const double rate = sms * device_.timing.bytes_in_flight_per_sm / loaded_latency_ns(device_.timing, per_partition, partition_bytes_per_ns_);
        const double all = static_cast<double>(problem_.total_ctx() * problem_.kv_heads) * costs_.token_bytes;
        return all / rate + costs_.startup_ns;
    }

    // Starts of the plan's CTAs: [0, grid].
    const std::vector<std::int64_t>& starts(const PlanView& v) {
        starts_.resize(static_cast<std::size_t>(v.grid + 1));
        for (std::int64_t g = 0; g <= v.grid; ++g) starts_[g] = plan::stream_k_start(v, g);
        return starts_;
    }

    // The estimate for the starts last computed by starts(v).
    StreamKEstimate estimate(const PlanView& v) {
        const std::int64_t grid = v.grid, sms = device_.sms;
        ctas_.assign(static_cast<std::size_t>(grid), Cta{});
        sm_bytes_.assign(static_cast<std::size_t>(std::min(sms, grid)), 0.0);
        StreamKEstimate out;
        for (std::int64_t g = 0; g < grid; ++g) {
            if (starts_[g + 1] > starts_[g]) out.partials += describe(v, g) ? 1 : 0;
        }
        stream_all();
        // Each CTA's own finish, and when its partial (if any) is published.
        for (std::int64_t g = 0; g < grid; ++g) {
            Cta& c = ctas_[g];
            if (starts_[g + 1] == starts_[g]) continue;
            c.own_ns = stream_ns(g, c.bytes) + c.other_ns;
            if (c.partial) c.ready_ns = stream_ns(g, c.first_bytes) + c.first_other_ns;
        }
        // A host of a split output (only ever a CTA's last segment) waits for its peers' partials, then merges.
        for (std::int64_t g = 0; g < grid; ++g) {
            const Cta& c = ctas_[g];
            if (starts_[g + 1] == starts_[g]) continue;
            double finish = c.own_ns;
            if (c.hosts_split) {
                // Its peers: the CTAs after g that start inside the output (none of them empty: walker.hpp).
                std::int64_t peer = g + 1;
                for (; peer < grid && starts_[peer] < c.last_out_end; ++peer) finish = std::max(finish, ctas_[peer].ready_ns);
                finish += costs_.flag_ns + static_cast<double>(peer - 1 - g) * costs_.merge_ns + costs_.store_ns;
            }
            out.makespan_ns = std::max(out.makespan_ns, finish);
        }
        return out;
    }

private:
    struct Cta {
        double bytes = 0.0, first_bytes = 0.0;        // K+V it reads; of them, its first segment's
        double other_ns = 0.0, first_other_ns = 0.0;  // its work besides reading; up to its partial
        double own_ns = 0.0, ready_ns = 0.0;          // its own finish; when its partial is published
        bool partial = false;                         // its first segment continues another CTA's output
        bool hosts_split = false;                     // its last segment hosts an output it does not finish
        std::int64_t last_out_end = 0;                // where its last segment's output ends
    };

    std::int64_t partition_of(std::int64_t sm) const { return sm * partitions_ / device_.sms; }

    // Fills CTA g's bytes and other work and adds its bytes to its SM; returns whether it stores a partial.
    bool describe(const PlanView& v, std::int64_t g) {
        const std::int64_t begin = starts_[g], end = starts_[g + 1];
        const std::int64_t first = plan::output_of_iteration(v, begin), last = plan::output_of_iteration(v, end - 1);
        const std::int64_t first_begin = plan::output_offset(v, first), last_begin = plan::output_offset(v, last);
        const std::int64_t first_out_end = first_begin + plan::output_tiles(v, first);
        const std::int64_t last_out_end = last_begin + plan::output_tiles(v, last);
        const std::int64_t first_end = std::min(end, first_out_end);
        const bool first_is_host = begin == first_begin;
        const bool last_finishes = end == last_out_end;
        // Whole segments store O as they end: those in the middle, the first if it is a host and finishes, the
        // last (when not the first) if it finishes. A split output's host stores after merging.
        const std::int64_t stores = std::max<std::int64_t>(last - first - 1, 0) + (first_is_host && first_end == first_out_end ? 1 : 0) +
                                    (last > first && last_finishes ? 1 : 0);
        Cta& c = ctas_[g];
        c.partial = !first_is_host;
        c.hosts_split = !last_finishes && begin <= last_begin;
        c.last_out_end = last_out_end;
        c.first_bytes = bytes(v, begin, first_end, first, first);
        c.bytes = c.first_bytes + (first_end < end ? bytes(v, first_end, end, first + 1, last) : 0.0);
        c.first_other_ns = costs_.startup_ns + static_cast<double>(first_end - begin) * costs_.tile_compute_ns + (c.partial ? costs_.partial_ns : 0.0);
        c.other_ns = c.first_other_ns + static_cast<double>(end - first_end) * costs_.tile_compute_ns +
                     static_cast<double>(last - first) * costs_.restart_ns + static_cast<double>(stores) * costs_.store_ns;
        sm_bytes_[g % device_.sms] += c.bytes;
        return c.partial;
    }

    // K+V bytes of global LeanTiles [from, to), which end at or before an output's end: whole LeanTiles,
    // less the tokens a request's partial last LeanTile lacks.
    // `first` and `last`: the outputs of LeanTiles `from` and `to` − 1.
    double bytes(const PlanView& v, std::int64_t from, std::int64_t to, std::int64_t first, std::int64_t last) const {
        std::int64_t tokens = (to - from) * problem_.tile;
        for (std::int64_t o = first; o <= last; ++o) {
            const std::int64_t n = plan::output_tiles(v, o);
            if (plan::output_offset(v, o) + n > to) break;  // its last LeanTile lies beyond
            tokens -= n * problem_.tile - problem_.ctx[static_cast<std::size_t>(o / v.kv_heads)];
        }
        return static_cast<double>(tokens) * costs_.token_bytes;
    }

    void stream_all() {
        for (PartitionStream& s : streams_) s.clear();
        for (std::size_t sm = 0; sm < sm_bytes_.size(); ++sm) {
            if (sm_bytes_[sm] > 0.0) streams_[partition_of(static_cast<std::int64_t>(sm))].add(sm_bytes_[sm]);
        }
        for (PartitionStream& s : streams_) s.solve([this](std::int64_t m) { return sm_rate(m); });
    }

    // When CTA g has read `bytes`: its SM shares its rate equally among its CTAs, so by then the SM has read
    // min(bytes, theirs) for each of them.
    double stream_ns(std::int64_t g, double bytes) const {
        const std::int64_t sms = device_.sms, sm = g % sms;
        double sm_read = 0.0;
        for (std::int64_t h = sm; h < static_cast<std::int64_t>(ctas_.size()); h += sms) sm_read += std::min(bytes, ctas_[h].bytes);
        return streams_[partition_of(sm)].time_to_read(sm_read, [this](std::int64_t m) { return sm_rate(m); });
    }

    const Problem& problem_;
    StreamKCosts costs_;
    const DeviceSpec& device_;
    std::int64_t partitions_;
    double partition_bytes_per_ns_;
    std::vector<PartitionStream> streams_;  // (partitions)
    std::vector<std::int64_t> starts_;      // (grid + 1)
    std::vector<Cta> ctas_;                 // (grid)
    std::vector<double> sm_bytes_;          // (min(SMs, grid)) bytes each SM reads
};

bool better(const StreamKEstimate& a, const StreamKEstimate& b) {
    const bool tie = std::abs(a.makespan_ns - b.makespan_ns) <= 1e-9 * std::max(a.makespan_ns, b.makespan_ns);
    return tie ? a.partials < b.partials : a.makespan_ns < b.makespan_ns;
}

}  // namespace

StreamKEstimate estimate_stream_k(const PlanView& plan, const Problem& problem, const DeviceSpec& device) {
    Estimator e(problem, device);
    e.starts(plan);
    return e.estimate(plan);
}

std::vector<AlignedCandidate> aligned_candidates(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given) {
    std::int64_t n_max = 0;
    for (std::int64_t b = 0; b < plan.batch; ++b) n_max = std::max(n_max, plan.request_tiles[b]);
    std::vector<std::int64_t> grids = {plan.grid};
    if (!grid_given) {
        for (std::int64_t g = plan.grid / 2; g >= 1; g /= 2) grids.push_back(g);
        const std::int64_t outputs = plan::outputs(plan);
        if (outputs < plan.grid && std::find(grids.begin(), grids.end(), outputs) == grids.end()) grids.push_back(outputs);
    }

    Estimator e(problem, device);
    std::vector<AlignedCandidate> out;
    std::optional<StreamKEstimate> best;
    std::vector<std::int64_t> previous;
    for (std::int64_t grid : grids) {
        PlanView v = plan;
        v.grid = grid;
        if (best && e.bound_ns(grid) > best->makespan_ns * (1.0 + 1e-9)) continue;
        previous.clear();
        for (std::int64_t snap = 0;; snap = snap == 0 ? 1 : std::min(2 * snap, n_max)) {
            v.snap = snap;
            const std::vector<std::int64_t>& starts = e.starts(v);
            // A larger snap that moves no start is the same plan: the same estimate.
            const StreamKEstimate estimate = starts == previous ? out.back().estimate : e.estimate(v);
            previous = starts;
            out.push_back({grid, snap, estimate});
            if (!best || better(estimate, *best)) best = estimate;
            if (snap >= n_max) break;
        }
    }
    return out;
}

AlignedCandidate choose_aligned(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given) {
    const std::vector<AlignedCandidate> all = aligned_candidates(plan, problem, device, grid_given);
    AlignedCandidate best = all.front();
    for (const AlignedCandidate& c : all) {
        if (better(c.estimate, best.estimate)) best = c;
    }
    return best;
}

}  // namespace leanattn

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
    c.reread = t.row_block_reread;
    c.tile_compute_ns = static_cast<double>((p.block_rows() + 15) / 16) * t.tile_compute_ns;
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
// the time at which the SM with each load is done (processor sharing: while m SMs stream, each reads a
// byte every ns_per_byte[m] ns).
class PartitionStream {
public:
    void clear() { loads_.clear(), merge_moved_ = false; }
    // The loads in the order the last solve sorted them, where few changed since (the next snap on one grid): those of
    // SMs not `changed` stay in that order, and the caller add()s the changed ones, which solve() sorts apart and merges in.
    void keep_in_last_order(const std::vector<char>& changed) {
        loads_.clear();
        moved_.clear();
        for (const Load& l : last_) {
            if (changed[static_cast<std::size_t>(l.sm)] == 0) loads_.push_back(l);
        }
        merge_moved_ = true;
    }
    void add(double bytes, std::int64_t sm) { (merge_moved_ ? moved_ : loads_).push_back({bytes, sm}); }
    // Sorts the loads and writes each SM's finish into finish[sm]. SMs of equal loads finish together, so their
    // order among themselves changes nothing.
    void solve(const std::vector<double>& ns_per_byte, std::vector<double>& finish) {
        const auto ascending = [](const Load& a, const Load& b) { return a.bytes < b.bytes; };
        if (merge_moved_) {
            std::sort(moved_.begin(), moved_.end(), ascending);
            last_.resize(loads_.size() + moved_.size());  // the merge's buffer here; last_ is set again below
            std::merge(loads_.begin(), loads_.end(), moved_.begin(), moved_.end(), last_.begin(), ascending);
            loads_.swap(last_);
            merge_moved_ = false;
        } else {
            std::sort(loads_.begin(), loads_.end(), ascending);
        }
        sorted_.resize(loads_.size());
        times_.resize(loads_.size());
        double t = 0.0, done = 0.0;
        const std::size_t m = loads_.size();
        for (std::size_t j = 0; j < m; ++j) {
            sorted_[j] = loads_[j].bytes;
            t += (sorted_[j] - done) * ns_per_byte[m - j];
            times_[j] = t, done = sorted_[j];
            finish[static_cast<std::size_t>(loads_[j].sm)] = t;
        }
        last_.swap(loads_);  // loads_ is refilled before the next solve
    }
    // When an SM of this partition has read `bytes` (at most its load).
    double time_to_read(double bytes, const std::vector<double>& ns_per_byte) const {
        const std::size_t j = static_cast<std::size_t>(std::lower_bound(sorted_.begin(), sorted_.end(), bytes) - sorted_.begin());
        if (j == sorted_.size()) return times_.empty() ? 0.0 : times_.back();
        return (j == 0 ? 0.0 : times_[j - 1]) + (bytes - (j == 0 ? 0.0 : sorted_[j - 1])) * ns_per_byte[sorted_.size() - j];
    }

private:
    struct Load {
        double bytes;    // of one streaming SM
        std::int64_t sm;
    };
    std::vector<Load> loads_;
    std::vector<Load> last_;           // the last solve's loads, sorted
    std::vector<Load> moved_;          // keep_in_last_order: loads changed since, to merge in
    bool merge_moved_ = false;
    std::vector<double> sorted_;       // loads, ascending
    std::vector<double> times_;        // when the SM with sorted_[j] finishes
};

// Estimates plan after plan, reusing its buffers: O(grid · log batch + SMs · log SMs) each.
class Estimator {
public:
    // `plan`: the request arrays every plan estimated shares (of `problem`).
    Estimator(const PlanView& plan, const Problem& problem, const DeviceSpec& device)
        : problem_(problem),
          costs_(StreamKCosts::of(problem, device.timing)),
          device_(device),
          partitions_(std::clamp<std::int64_t>(device.timing.hbm_partitions, 1, device.sms)),
          partition_bytes_per_ns_(device.timing.hbm_bandwidth_gb_per_s / static_cast<double>(partitions_)),
          streams_(static_cast<std::size_t>(partitions_)),
          missing_before_(static_cast<std::size_t>(plan.batch + 1), 0) {
        // ns per byte of one SM while m SMs of its partition stream, m = 1 … the largest partition's SMs.
        const std::int64_t largest = (device.sms + partitions_ - 1) / partitions_;
        ns_per_byte_.assign(static_cast<std::size_t>(largest + 1), 0.0);
        for (std::int64_t m = 1; m <= largest; ++m) ns_per_byte_[m] = 1.0 / sm_rate(m);
        for (std::int64_t b = 0; b < plan.batch; ++b) {
            missing_before_[b + 1] = missing_before_[b] + plan.outputs_per_request * missing(plan, b);
        }
        partition_of_.resize(static_cast<std::size_t>(device.sms));
        for (std::int64_t sm = 0; sm < device.sms; ++sm) partition_of_[sm] = sm * partitions_ / device.sms;
    }

    std::int64_t resident_ctas() const { return device_.resident_ctas(); }
    const Problem& problem() const { return problem_; }
    const DeviceSpec& device() const { return device_; }

    // Bytes per ns of one SM while `streaming` SMs of its partition stream.
    double sm_rate(std::int64_t streaming) const {
        return device_.timing.bytes_in_flight_per_sm / loaded_latency_ns(device_.timing, static_cast<double>(streaming), partition_bytes_per_ns_);
    }

    // A lower bound for any plan on `grid` CTAs, after its startup: all bytes read by min(grid, SMs) SMs spread
    // evenly over the partitions (the most bandwidth they can draw: rate grows with SMs, concavely); the
    // busiest CTA's bytes (at least the average) at the rate of an SM streaming alone; its compute.
    double bound_ns(std::int64_t grid, std::int64_t total_tiles) const {
        const double sms = static_cast<double>(std::min(grid, device_.sms));
        const double per_partition = sms / static_cast<double>(partitions_);
        const double rate = sms * device_.timing.bytes_in_flight_per_sm / loaded_latency_ns(device_.timing, per_partition, partition_bytes_per_ns_);
        // Beyond the resident CTAs every later row block at the side-by-side share (describe()).
        const double blocks = static_cast<double>(problem_.row_blocks());
        const double reread = grid > device_.resident_ctas() ? costs_.reread : 1.0;
        const double all = static_cast<double>(problem_.total_ctx() * problem_.outputs_per_request()) * costs_.token_bytes *
                           (1.0 + (blocks - 1.0) * reread) / blocks;
        const double per_cta = 1.0 / static_cast<double>(grid);
        return costs_.startup_ns + std::max({all / rate, all * per_cta / sm_rate(1), static_cast<double>(total_tiles) * per_cta * costs_.tile_compute_ns});
    }

    // Starts of the plan's CTAs, [0, grid], as the walker places them.
    const std::vector<std::int64_t>& starts(const PlanView& v) {
        starts_.resize(static_cast<std::size_t>(v.grid + 1));
        for (std::int64_t g = 0; g <= v.grid; ++g) starts_[g] = plan::stream_k_start(v, g);
        described_.clear();
        return starts_;
    }

    // The same for snap after snap on one grid: each CTA's ideal start and its nearest boundary, found once
    // (prepare_grid), then per snap the walker's rule (stream_k_start): the boundary if within snap, else the
    // ideal start. A test checks the two paths agree.
    // The ideal starts ascend, so their requests are found by walking the requests once (no search per CTA, whose
    // branches a new problem mispredicts); the boundaries are those of plan::nearest_output_boundary, which a test holds
    // them to.
    void prepare_grid(const PlanView& v) {
        ideal_.resize(static_cast<std::size_t>(v.grid + 1));
        nearest_.resize(static_cast<std::size_t>(v.grid + 1));
        const std::int64_t q = v.total_tiles / v.grid, r = v.total_tiles % v.grid;
        std::int64_t b = 0;  // the request holding the current start
        for (std::int64_t g = 0; g <= v.grid; ++g) {
            const std::int64_t x = g * q + std::min(g, r);  // plan::stream_k_ideal_start
            ideal_[g] = x;
            if (x <= 0 || x >= v.total_tiles) {
                nearest_[g] = {x, 0};
                continue;
            }
            while (v.request_offset[b + 1] <= x) ++b;
            const std::int64_t tiles = v.request_tiles[b];
            const std::int64_t lower = x - (x - v.request_offset[b]) % tiles;  // where x's output begins
            const std::int64_t down = x - lower, up = lower + tiles - x;
            nearest_[g] = down <= up ? plan::NearestBoundary{lower, down} : plan::NearestBoundary{x + up, up};
        }
        described_.clear();
    }
    // Returns whether any start differs from those last estimated on this grid (none estimated yet: true); where none
    // does, the plan is the one estimated last, and so is its estimate.
    bool starts_with_snap(std::int64_t snap) {
        starts_.resize(ideal_.size());
        bool moved = described_.size() != starts_.size();
        for (std::size_t g = 0; g < ideal_.size(); ++g) {
            starts_[g] = snap != 0 && nearest_[g].distance <= snap ? nearest_[g].at : ideal_[g];
            if (!moved && starts_[g] != described_[g]) moved = true;
        }
        return moved;
    }

    // The estimate of plan v, whose starts were last computed (by starts(v), or starts_with_snap(v.snap) after
    // prepare_grid(v)). After starts_with_snap on the grid last estimated (at most one CTA per SM), only the CTAs
    // next to a start that moved are described again (a larger snap moves a few starts onto boundaries), and only
    // their SMs' loads are sorted into the order of the last estimate's: the same estimate, to the bit, as describing
    // every CTA (a test holds the two paths equal).
    StreamKEstimate estimate(const PlanView& v) {
        const std::int64_t grid = v.grid, sms = device_.sms;
        const bool again = grid <= sms && described_.size() == starts_.size();
        ctas_.resize(static_cast<std::size_t>(grid));  // describe() sets every field of a non-empty CTA
        StreamKEstimate out;
        previous_ = std::nullopt;
        if (again) changed_.assign(static_cast<std::size_t>(grid), 0);
        else sm_bytes_.assign(static_cast<std::size_t>(std::min(sms, grid)), 0.0);
        for (std::int64_t g = 0; g < grid; ++g) {
            const std::int64_t tiles = starts_[g + 1] - starts_[g];
            out.most_tiles = std::max(out.most_tiles, tiles);
            if (tiles > 0) out.least_tiles = out.least_tiles == 0 ? tiles : std::min(out.least_tiles, tiles);
            if (again && starts_[g] == described_[g] && starts_[g + 1] == described_[g + 1]) {
                out.partials += tiles > 0 && ctas_[g].partial ? 1 : 0;
                out.empty += tiles > 0 ? 0 : 1;
                previous_ = std::nullopt;  // the next CTA described, if any, locate()s its first LeanTile
                continue;
            }
            if (tiles > 0) out.partials += describe(v, g) ? 1 : 0;
            else ++out.empty, ctas_[g] = Cta{};
            if (again) sm_bytes_[static_cast<std::size_t>(g)] = ctas_[g].bytes, changed_[static_cast<std::size_t>(g)] = 1;
            else sm_bytes_[static_cast<std::size_t>(sm_of(g))] += ctas_[g].bytes;
        }
        stream_all(again);
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
        described_.swap(starts_);  // starts_ is written afresh before the next estimate
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

    std::int64_t partition_of(std::int64_t sm) const { return partition_of_[static_cast<std::size_t>(sm)]; }
    std::int64_t sm_of(std::int64_t g) const { return g < device_.sms ? g : g % device_.sms; }  // sm_of_cta

    // Where global LeanTile `iter` lies: its output, and that output's first LeanTile, length and request.
    struct Place {
        std::int64_t output, begin, tiles, request, head;
    };
    static Place locate(const PlanView& v, std::int64_t iter) {
        // As plan::output_of_iteration, keeping the request and head it finds on the way.
        const std::int64_t b = std::upper_bound(v.request_offset, v.request_offset + v.batch, iter) - v.request_offset - 1;
        const std::int64_t h = (iter - v.request_offset[b]) / v.request_tiles[b];
        return {b * v.outputs_per_request + h, v.request_offset[b] + h * v.request_tiles[b], v.request_tiles[b], b, h};
    }
    // The same for the LeanTile after `before`'s output's LeanTile `iter − 1`, without a search: CTAs are described
    // in order, and each begins where the last non-empty one ended.
    static Place locate_after(const PlanView& v, const Place& before, std::int64_t iter) {
        if (iter < before.begin + before.tiles) return before;
        if (before.head + 1 < v.outputs_per_request) return {before.output + 1, iter, before.tiles, before.request, before.head + 1};
        return {before.output + 1, iter, v.request_tiles[before.request + 1], before.request + 1, 0};
    }

    // Fills CTA g's bytes and other work; returns whether it stores a partial.
    bool describe(const PlanView& v, std::int64_t g) {
        const std::int64_t begin = starts_[g], end = starts_[g + 1];
        const Place first = previous_ ? locate_after(v, *previous_, begin) : locate(v, begin);
        const Place last = end <= first.begin + first.tiles ? first : locate(v, end - 1);
        previous_ = last;
        const std::int64_t first_out_end = first.begin + first.tiles, last_out_end = last.begin + last.tiles;
        const std::int64_t first_end = std::min(end, first_out_end);
        const bool first_is_host = begin == first.begin;
        const bool last_finishes = end == last_out_end;
        const std::int64_t outputs = last.output - first.output;  // segments after the first
        // Whole segments store O as they end: those in the middle, the first if it is a host and finishes, the
        // last (when not the first) if it finishes. A split output's host stores after merging.
        const std::int64_t stores =
            std::max<std::int64_t>(outputs - 1, 0) + (first_is_host && first_end == first_out_end ? 1 : 0) + (outputs > 0 && last_finishes ? 1 : 0);
        // Bytes: whole LeanTiles, less the tokens lacking in the partial last LeanTiles it holds.
        const std::int64_t first_missing = first_end == first_out_end ? missing(v, first.request) : 0;
        const std::int64_t all_missing = missing_before(v, last, last_finishes) - missing_before(v, first, false);
        Cta& c = ctas_[g];
        c.own_ns = c.ready_ns = 0.0;
        c.partial = !first_is_host;
        c.hosts_split = !last_finishes && begin <= last.begin;
        c.last_out_end = last_out_end;
        c.first_bytes = static_cast<double>((first_end - begin) * problem_.tile - first_missing) * costs_.token_bytes;
        c.bytes = static_cast<double>((end - begin) * problem_.tile - all_missing) * costs_.token_bytes;
        // Beyond the resident CTAs (one whole output each, in hardware waves) a later row block is read side by side
        // with the block before it, on a neighbouring SM at about the same time: mostly from L2. Within them the
        // measured gains of such sharing did not hold up (an H100 A/B: plans that moved CTA starts onto later
        // blocks ran up to 1.5x slower), so those plans read every block in full, as before.
        if (v.grid > device_.resident_ctas() && problem_.first_row_of(first.output) > 0) {
            const double l2 = (1.0 - costs_.reread) * c.first_bytes;
            c.first_bytes -= l2;
            c.bytes -= l2;
        }
        c.first_other_ns = costs_.startup_ns + static_cast<double>(first_end - begin) * costs_.tile_compute_ns + (c.partial ? costs_.partial_ns : 0.0);
        c.other_ns = c.first_other_ns + static_cast<double>(end - first_end) * costs_.tile_compute_ns +
                     static_cast<double>(outputs) * costs_.restart_ns + static_cast<double>(stores) * costs_.store_ns;
        return c.partial;
    }

    // Tokens request b's partial last LeanTile lacks, per output.
    std::int64_t missing(const PlanView& v, std::int64_t b) const { return v.request_tiles[b] * problem_.tile - problem_.ctx[static_cast<std::size_t>(b)]; }
    // Tokens lacking in the outputs before `at` (and in `at` itself if `inclusive`).
    std::int64_t missing_before(const PlanView& v, const Place& at, bool inclusive) const {
        return missing_before_[at.request] + (at.head + (inclusive ? 1 : 0)) * missing(v, at.request);
    }

    // Each SM's finish. Re-estimating (`again`: one CTA per SM), each partition's SMs come in the order the last estimate
    // sorted them, those whose CTA was described again (changed_) sorted apart and merged in.
    void stream_all(bool again) {
        sm_finish_.resize(sm_bytes_.size());
        if (again) {
            for (PartitionStream& s : streams_) s.keep_in_last_order(changed_);
        } else {
            for (PartitionStream& s : streams_) s.clear();
        }
        for (std::size_t sm = 0; sm < sm_bytes_.size(); ++sm) {
            if (sm_bytes_[sm] > 0.0 && (!again || changed_[sm] != 0)) streams_[partition_of(static_cast<std::int64_t>(sm))].add(sm_bytes_[sm], static_cast<std::int64_t>(sm));
        }
        for (PartitionStream& s : streams_) s.solve(ns_per_byte_, sm_finish_);
    }

    // When CTA g has read `bytes`: its SM shares its rate equally among its CTAs, so by then the SM has read
    // min(bytes, theirs) for each of them.
    double stream_ns(std::int64_t g, double bytes) const {
        const std::int64_t sms = device_.sms, sm = sm_of(g);
        double sm_read = 0.0;
        for (std::int64_t h = sm; h < static_cast<std::int64_t>(ctas_.size()); h += sms) sm_read += std::min(bytes, ctas_[h].bytes);
        if (sm_read >= sm_bytes_[sm]) return sm_finish_[sm];  // the last of its SM's CTAs to finish
        return streams_[partition_of(sm)].time_to_read(sm_read, ns_per_byte_);
    }

    const Problem& problem_;
    StreamKCosts costs_;
    const DeviceSpec& device_;
    std::int64_t partitions_;
    double partition_bytes_per_ns_;
    std::vector<PartitionStream> streams_;  // (partitions)
    std::vector<std::int64_t> starts_;      // (grid + 1)
    std::vector<std::int64_t> ideal_;       // (grid + 1) the paper's starts on the grid being prepared
    std::vector<plan::NearestBoundary> nearest_;  // (grid + 1) the boundary nearest each
    std::vector<Cta> ctas_;                 // (grid)
    std::vector<double> sm_bytes_;          // (min(SMs, grid)) bytes each SM reads
    std::vector<double> sm_finish_;         // (min(SMs, grid)) when each SM has read them
    std::vector<std::int64_t> missing_before_;  // (batch + 1) tokens lacking in the partial LeanTiles of requests before b
    std::vector<double> ns_per_byte_;           // (largest partition's SMs + 1) of one SM while m stream
    std::vector<std::int64_t> partition_of_;    // (SMs)
    std::optional<Place> previous_;             // where the last non-empty CTA described ends (its last LeanTile)
    std::vector<std::int64_t> described_;       // the starts ctas_ and sm_bytes_ hold (empty: none), for estimate's again
    std::vector<char> changed_;                 // (grid) estimate's again: CTA g (on SM g) was described again
};

// Whether a candidate's load is spread as the paper's plan spreads it: its most loaded CTA holds at most 1.5x its grid's
// fair share (⌈LeanTiles / grid⌉), or every CTA that holds work holds the same to one LeanTile (a snap that empties whole
// CTAs evenly, e.g. two CTAs on each output where the grid has four). A snap may move starts onto boundaries, not pile
// the LeanTiles of the CTAs it empties onto a few neighbours.
bool balanced(const AlignedCandidate& c, std::int64_t total_tiles) {
    const std::int64_t fair = (total_tiles + c.grid - 1) / c.grid;
    return 2 * c.estimate.most_tiles <= 3 * fair || c.estimate.most_tiles - c.estimate.least_tiles <= 1;
}

// The order of choose_aligned (stream_k_cost.hpp): the lower estimate; of equal ones, a balanced plan, then fewer
// partials, then fewer empty CTAs. Equal on all, the earlier candidate stays.
bool better(const AlignedCandidate& a, const AlignedCandidate& b, std::int64_t total_tiles) {
    const bool tie = std::abs(a.estimate.makespan_ns - b.estimate.makespan_ns) <= 1e-9 * std::max(a.estimate.makespan_ns, b.estimate.makespan_ns);
    if (!tie) return a.estimate.makespan_ns < b.estimate.makespan_ns;
    const bool balanced_a = balanced(a, total_tiles), balanced_b = balanced(b, total_tiles);
    if (balanced_a != balanced_b) return balanced_a;
    return a.estimate.partials != b.estimate.partials ? a.estimate.partials < b.estimate.partials : a.estimate.empty < b.estimate.empty;
}

}  // namespace

StreamKEstimate estimate_stream_k(const PlanView& plan, const Problem& problem, const DeviceSpec& device) {
    Estimator e(plan, problem, device);
    e.starts(plan);
    return e.estimate(plan);
}

struct AlignedSearch::State {
    State(const PlanView& p, const Problem& problem, const DeviceSpec& device) : plan(p), estimator(p, problem, device) {
        for (std::int64_t b = 0; b < plan.batch; ++b) n_max = std::max(n_max, plan.request_tiles[b]);
    }

    // Grid `grid`'s snaps, estimated (or found estimated) and appended to `out`.
    void search_grid(std::int64_t grid, std::vector<AlignedCandidate>& out) {
        for (const auto& [searched, candidates] : grids) {
            if (searched == grid) {
                out.insert(out.end(), candidates.begin(), candidates.end());
                return;
            }
        }
        std::vector<AlignedCandidate> mine;
        PlanView v = plan;
        v.grid = grid;
        estimator.prepare_grid(v);
        // A grid beyond the resident CTAs is safe only with every output whole: its one snap is n_max.
        const std::int64_t first_snap = grid > estimator.resident_ctas() ? n_max : 0;
        for (std::int64_t snap = first_snap;; snap = snap == 0 ? 1 : std::min(2 * snap, n_max)) {
            v.snap = snap;
            // A larger snap that moves no start is the same plan: the same estimate.
            const StreamKEstimate estimate = estimator.starts_with_snap(snap) ? estimator.estimate(v) : mine.back().estimate;
            mine.push_back({grid, snap, estimate});
            // No partial: every start is on a boundary already, where any larger snap leaves it.
            if (snap >= n_max || estimate.partials == 0) break;
        }
        out.insert(out.end(), mine.begin(), mine.end());
        grids.emplace_back(grid, std::move(mine));
    }

    PlanView plan;
    Estimator estimator;
    std::int64_t n_max = 0;
    std::vector<std::pair<std::int64_t, std::vector<AlignedCandidate>>> grids;  // each grid searched, its snaps in order
};

AlignedSearch::AlignedSearch(const PlanView& plan, const Problem& problem, const DeviceSpec& device) : state_(std::make_unique<State>(plan, problem, device)) {}

AlignedSearch::~AlignedSearch() = default;

std::vector<AlignedCandidate> AlignedSearch::candidates(std::int64_t grid, bool grid_given) {
    const PlanView& plan = state_->plan;
    std::vector<std::int64_t> grids = {grid};
    if (!grid_given) {
        const std::int64_t outputs = plan::outputs(plan);
        const std::int64_t whole = outputs > 0 ? grid / outputs * outputs : 0;  // k CTAs on every output
        if (whole >= 2 * outputs && whole < grid) grids.push_back(whole);
        for (std::int64_t g = grid / 2; g >= 1; g /= 2) {
            if (g != whole) grids.push_back(g);
        }
        if (outputs < grid && std::find(grids.begin(), grids.end(), outputs) == grids.end()) grids.push_back(outputs);
        // More outputs than CTAs, in row blocks that the L2 can share: one output per CTA, beyond the resident CTAs
        // (whole outputs: no host waits, so hardware waves may run them), reads a KV head's blocks side by side
        // where a smaller grid's CTAs read them one after another, each from HBM. Only where the waves are nearly
        // full (outputs ≥ 90% of ⌈waves⌉ · resident CTAs): the estimate shares each SM's rate among its CTAs and
        // cannot see a short last wave, which measured 1.2-1.5x slower at 1.1-1.2 waves on an H100.
        const std::int64_t resident = state_->estimator.device().resident_ctas();
        const std::int64_t waves = (outputs + resident - 1) / resident;
        if (outputs > grid && state_->estimator.problem().row_blocks() > 1 && state_->estimator.device().timing.row_block_reread < 1.0 && 10 * outputs >= 9 * waves * resident) {
            grids.push_back(outputs);
        }
    }
    std::vector<AlignedCandidate> out;
    std::optional<AlignedCandidate> best;
    for (const std::int64_t g : grids) {
        if (best && state_->estimator.bound_ns(g, plan.total_tiles) > best->estimate.makespan_ns * (1.0 + 1e-9)) continue;
        const std::size_t first = out.size();
        state_->search_grid(g, out);
        for (std::size_t i = first; i < out.size(); ++i) {
            if (!best || better(out[i], *best, plan.total_tiles)) best = out[i];
        }
    }
    return out;
}

AlignedCandidate AlignedSearch::choose(std::int64_t grid, bool grid_given) {
    const std::vector<AlignedCandidate> all = candidates(grid, grid_given);
    AlignedCandidate best = all.front();
    for (const AlignedCandidate& c : all) {
        if (better(c, best, state_->plan.total_tiles)) best = c;
    }
    // Starts all on boundaries stay there under any larger snap: recording the largest says that no live
    // lengths can split an output (Schedule::whole_outputs), which lets the plan serve every step safely.
    if (best.estimate.partials == 0) best.snap = std::max(best.snap, state_->n_max);
    return best;
}

std::vector<AlignedCandidate> aligned_candidates(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given) {
    return AlignedSearch(plan, problem, device).candidates(plan.grid, grid_given);
}

AlignedCandidate choose_aligned(const PlanView& plan, const Problem& problem, const DeviceSpec& device, bool grid_given) {
    return AlignedSearch(plan, problem, device).choose(plan.grid, grid_given);
}

}  // namespace leanattn

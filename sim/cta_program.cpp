#include "cta_program.hpp"

#include <algorithm>

#include "core/cost_estimate.hpp"
#include "core/walker.hpp"

namespace leanattn::sim {

namespace {

class Builder {
public:
    explicit Builder(LaunchProgram& program) : program_(program) {
        program_.phases.clear();
        program_.first.assign(1, 0);
    }
    void work(double ns, bool reduction = false, bool signals = false) {
        program_.phases.push_back({PhaseKind::work, reduction, signals, ns, 0.0, 0.0, -1, -1});
    }
    void stream(double bytes, bool reduction = false, double min_ns = 0.0, double loss = 0.0, std::int64_t output = -1) {
        program_.phases.push_back({PhaseKind::stream, reduction, false, bytes, min_ns, loss, -1, output});
    }
    void wait(std::int64_t peer) { program_.phases.push_back({PhaseKind::wait, true, false, 0.0, 0.0, 0.0, peer, -1}); }
    // Closes the program begun after the last one; returns its index.
    std::int32_t end_cta() {
        program_.first.push_back(static_cast<std::int64_t>(program_.phases.size()));
        return static_cast<std::int32_t>(program_.first.size() - 2);
    }

private:
    LaunchProgram& program_;
};

double partial_store(const KernelModel& k, const Problem& p) { return k.partial_store_ns + partial_bytes(p) / 1024.0 * k.partial_store_ns_per_kb; }

// The share of a segment's K and V bytes read from HBM. A later row block of a KV head mostly hits the L2: the
// CTAs of its neighbouring blocks read the same tokens at about the same time. Not when this CTA read the block
// before it itself, just before: the other CTAs' reads have cycled the L2 in between (measured on an H100: a CTA
// holding a head's three blocks in turn took 2.49 us per LeanTile, no-split's CTAs of one head, side by side, 1.63).
// `row_blocks`: the problem's (a KV head's first block is the output whose id they divide: problem.hpp).
double reread_share(const KernelModel& k, std::int64_t row_blocks, std::int64_t output, std::int64_t previous_output) {
    if (output % row_blocks == 0) return 1.0;
    return previous_output == output - 1 ? 1.0 : k.reread_fraction;
}

// The phases of a plan's main launch, CTA by CTA: what main_launch lists for every CTA and shared_main_launch
// once per distinct program. The plan's constants are worked out once.
class MainLaunchPhases {
public:
    MainLaunchPhases(const Schedule& s, const KernelModel& k, std::int64_t bytes_per_element)
        : s_(s), k_(k), p_(s.problem), plan_(s.view()),
          token_bytes_(static_cast<double>(p_.head_dim * 2 * bytes_per_element)),
          rows16_(static_cast<double>((p_.block_rows() + 15) / 16)), row_blocks_(p_.row_blocks()), outputs_per_request_(p_.outputs_per_request()),
          // A stream-k plan whose CTAs each hold one whole output is walked as no-split (one lookup); any other
          // searches the plan for its range first.
          walk_(s.strategy == Strategy::stream_k && !s.one_output_per_cta ? k.stream_k_walk_ns : 0.0),
          fill_(k.pipeline_fills_per_segment * k.bytes_in_flight_per_sm), partial_store_(partial_store(k, p_)),
          merge_per_peer_(k.merge_ns_per_partial + partial_bytes(p_) / 1024.0 * k.merge_ns_per_kb),
          lag_mb_per_tile_(static_cast<double>(std::min(s.grid, s.device.resident_ctas()) * p_.tile) * token_bytes_ / 1e6), compute_(k, p_, bytes_per_element) {
        // Stream-k: every CTA's start, found once (the walker would find each twice, and hosts search them again).
        if (s.strategy == Strategy::stream_k) {
            starts_.resize(static_cast<std::size_t>(s.grid) + 1);
            for (std::int64_t g = 0; g <= s.grid; ++g) starts_[static_cast<std::size_t>(g)] = plan::stream_k_start(plan_, g);
            if (k.merge == MergeOrder::shared) count_other_ctas();
        }
    }

    void append(Builder& b, std::int64_t g) {
        // CTAs dispatch in grid order: the first resident_ctas() are the first wave, there before the live plan.
        b.work(k_.cta_setup_ns + walk_ + (g < s_.device.resident_ctas() ? k_.plan_wait_ns : 0.0));
        bool any = false;
        std::int64_t previous_output = -1;
        for (CtaWalker w = walker(g); w.valid(); w.advance()) {
            if (any) b.work(k_.segment_ns);
            any = true;
            const Segment seg = w.current();
            const std::int64_t ctx = p_.ctx[static_cast<std::size_t>(seg.output / outputs_per_request_)];
            const double tokens = static_cast<double>(std::min(seg.end * p_.tile, ctx) - seg.begin * p_.tile);
            const double reread = lagged() ? lagged_reread_share(g, seg, ctx) : reread_share(k_, row_blocks_, seg.output, previous_output);
            previous_output = seg.output;
            if (k_.compute_overlaps_loads) {
                b.stream(tokens * token_bytes_ * reread + fill_, false, compute(tokens), k_.compute_overlap_loss, seg.output);
                if (k_.compute_drain_tokens > 0.0) b.work(compute(std::min(tokens, k_.compute_drain_tokens)));
            } else {
                b.stream(tokens * token_bytes_ * reread, false, 0.0, 0.0, seg.output);
                b.work(static_cast<double>(seg.tiles()) * rows16_ * k_.tile_compute_ns);  // whole LeanTiles, the last one too
            }
            if (s_.strategy == Strategy::fixed_split && s_.splits > 1) {
                b.work(partial_store_, true);  // every split, host included, leaves a partial for the reduce kernel
            } else if (!seg.host) {
                const std::int64_t host = other_.empty() ? -1 : host_of(seg.output);
                const std::int64_t c = host < 0 ? 0 : contributors(host, seg);
                if (shared_group(host, c)) shared_merge(b, g - host, host, c);
                else b.work(partial_store_, true, true);  // stream-k peer: partial, fence, flag
            } else if (!seg.finishing) {
                const std::int64_t c = contributors(g, seg);
                if (shared_group(g, c)) shared_merge(b, 0, g, c);
                else host_merge(b, g, c);
            } else {
                b.work(k_.output_store_ns);
            }
        }
        // A fixed-split chunk beyond a short request's end still runs: FlashAttention-2 writes an empty
        // partial (O = 0, LSE = −∞) so that the reduce kernel reads defined values.
        if (!any && s_.strategy == Strategy::fixed_split && s_.splits > 1) b.work(partial_store_, true);
    }

private:
    double compute(double tokens) const { return compute_.ns(tokens); }

    // Stream-k under a kernel that ages the L2 (reread_lag_mb): every CTA's range is known (starts_).
    bool lagged() const { return k_.reread_lag_mb > 0.0 && row_blocks_ > 1 && !starts_.empty(); }

    // The HBM share of stream-k segment `seg` of CTA g, whose request holds `ctx` tokens (KernelModel::reread_lag_mb).
    // A LeanTile's place is how far into its CTA's range it lies (the CTAs start together and stream at about one rate,
    // so places order the reads in time). The KV head's other row blocks read the same tokens at their own places: the
    // read after the latest one before it (an equal place counts as before for a lower block: side by side, the lowest
    // block reads from HBM) finds them in the L2 as aged by the LeanTiles between; a read before every other is from HBM.
    double lagged_reread_share(std::int64_t g, const Segment& seg, std::int64_t ctx) {
        // The head's blocks are consecutive outputs of one request, of n LeanTiles each, from `first` on.
        const std::int64_t block = seg.output % row_blocks_, first = plan::output_offset(plan_, seg.output - block), n = plan::output_tiles(plan_, seg.output);
        const std::int64_t mine = first + block * n - starts_[static_cast<std::size_t>(g)];  // LeanTile x's place: mine + x
        // Per other block j: where its LeanTiles begin and the CTA holding its LeanTile x.
        // The blocks' LeanTiles lie in order, so each block's CTA is found walking on from the one before's.
        others_.clear();
        std::int64_t c = std::upper_bound(starts_.begin(), starts_.end() - 1, first + seg.begin) - starts_.begin() - 1;
        for (std::int64_t j = 0; j < row_blocks_; ++j) {
            const std::int64_t offset = first + j * n;
            while (starts_[static_cast<std::size_t>(c) + 1] <= offset + seg.begin) ++c;
            if (j != block) others_.push_back({j, offset, c});
        }
        const auto tokens_before = [&](std::int64_t x) { return static_cast<double>(std::min(x * p_.tile, ctx)); };  // of LeanTiles [0, x)
        double weighted = 0.0;
        for (std::int64_t x = seg.begin; x < seg.end;) {
            std::int64_t to = seg.end, lag = -1;
            for (Other& o : others_) {
                while (starts_[static_cast<std::size_t>(o.cta) + 1] <= o.offset + x) ++o.cta;
                to = std::min(to, starts_[static_cast<std::size_t>(o.cta) + 1] - o.offset);
                const std::int64_t ahead = mine - (o.offset - starts_[static_cast<std::size_t>(o.cta)]);  // my place less theirs
                if (ahead > 0 || (ahead == 0 && o.block < block)) lag = lag < 0 ? ahead : std::min(lag, ahead);
            }
            const double aged = std::min(1.0, static_cast<double>(lag) * lag_mb_per_tile_ / k_.reread_lag_mb);  // 0: side by side
            const double share = lag < 0 ? 1.0 : k_.reread_fraction + (1.0 - k_.reread_fraction) * aged;
            weighted += share * (tokens_before(to) - tokens_before(x));
            x = to;
        }
        return weighted / (tokens_before(seg.end) - tokens_before(seg.begin));
    }
    struct Other {
        std::int64_t block, offset, cta;
    };
    std::vector<Other> others_;  // lagged_reread_share's: the KV head's other row blocks

    CtaWalker walker(std::int64_t g) const {
        if (starts_.empty()) return CtaWalker(plan_, g);
        return CtaWalker(plan_, IterRange{starts_[static_cast<std::size_t>(g)], starts_[static_cast<std::size_t>(g) + 1]});
    }

    // plan::host_contributors of stream-k host segment `seg` of CTA `host`: up to the CTA holding the output's last
    // LeanTile, the last whose start is at most that LeanTile (plan::stream_k_cta_of), found among the starts.
    std::int64_t contributors(std::int64_t host, const Segment& seg) const {
        const std::int64_t last = plan::output_offset(plan_, seg.output) + plan::output_tiles(plan_, seg.output) - 1;
        return std::upper_bound(starts_.begin() + host, starts_.end() - 1, last) - starts_.begin() - 1 - host + 1;
    }

    // The CTA holding output `output`'s first LeanTile: the last whose start is at most that LeanTile.
    std::int64_t host_of(std::int64_t output) const {
        return std::upper_bound(starts_.begin(), starts_.end() - 1, plan::output_offset(plan_, output)) - starts_.begin() - 1;
    }

    // Under MergeOrder::shared: other_[g] counts the CTAs before g whose range is empty or spans more than one output
    // (more than one segment), so that a group's test is one subtraction.
    void count_other_ctas() {
        other_.assign(starts_.size(), 0);
        for (std::size_t g = 0; g + 1 < starts_.size(); ++g) {
            const std::int64_t b = starts_[g], e = starts_[g + 1];
            const bool one = e > b && plan::output_of_iteration(plan_, b) == plan::output_of_iteration(plan_, e - 1);
            other_[g + 1] = other_[g] + (one ? 0 : 1);
        }
    }

    // Whether the output hosted by `host` with `contributors` CTAs is merged by all of them (MergeOrder::shared: it is
    // split, and each of its CTAs holds one segment, its part of it), as the GPU's step table marks it.
    bool shared_group(std::int64_t host, std::int64_t contributors) const {
        if (other_.empty() || contributors < 2) return false;
        return other_[static_cast<std::size_t>(host + contributors)] == other_[static_cast<std::size_t>(host)];
    }

    // Contributor `rank` (0: the host) of an output merged by all its `contributors` CTAs from `host` on: its partial and
    // arrival, a wait until every other contributor has arrived, then its share of the rows (rank, rank + contributors,
    // …) merged over every partial, and stored.
    void shared_merge(Builder& b, std::int64_t rank, std::int64_t host, std::int64_t contributors) const {
        b.work(partial_store_, true, true);
        for (std::int64_t i = 0; i < contributors; ++i) {
            if (i != rank) b.wait(host + i);
        }
        const std::int64_t rows = p_.block_rows();
        const std::int64_t mine = rank < rows ? (rows - rank + contributors - 1) / contributors : 0;
        if (mine == 0) return;
        // Its rows' loads of each peer's partial are in flight together, as the lone host's are for all rows: the time
        // per peer (merge_ns_per_partial, the loads' round trips) is the host's, the bytes (merge_ns_per_kb) its share.
        const double share = static_cast<double>(mine) / static_cast<double>(rows);
        const double per_peer = k_.merge_ns_per_partial + partial_bytes(p_) / 1024.0 * k_.merge_ns_per_kb * share;
        b.work(k_.merge_ns + static_cast<double>(contributors - 1) * per_peer, true);
        b.work(k_.output_store_ns * share);
    }

    // Stream-k host CTA `host` of a split output: its peers' partials, then its output (Algorithm 2, lines 25–36).
    // Its contributors are it and the CTAs after it (walker.hpp).
    void host_merge(Builder& b, std::int64_t host, std::int64_t contributors) const {
        const double per_peer = merge_per_peer_;
        if (k_.merge == MergeOrder::serial) {
            for (std::int64_t i = 1; i < contributors; ++i) {
                b.wait(host + i);
                b.work(k_.merge_ns + per_peer, true);
            }
        } else {
            for (std::int64_t i = 1; i < contributors; ++i) b.wait(host + i);
            b.work(k_.merge_ns + static_cast<double>(contributors - 1) * per_peer, true);
        }
        b.work(k_.output_store_ns);
    }

    const Schedule& s_;
    const KernelModel& k_;
    const Problem& p_;
    const PlanView plan_;
    const double token_bytes_;
    const double rows16_;  // 16-row groups of a block: tile_compute_ns is per 16 rows
    const std::int64_t row_blocks_, outputs_per_request_;
    const double walk_, fill_, partial_store_, merge_per_peer_;
    const double lag_mb_per_tile_;  // MB the GPU streams while every CTA at once reads one LeanTile (reread_lag_mb)
    std::vector<std::int64_t> other_;  // MergeOrder::shared only (count_other_ctas)
    const ComputeCost compute_;
    std::vector<std::int64_t> starts_;  // stream-k: (grid + 1) every CTA's first LeanTile, then I
};

// Fixed-split's reduce CTAs per output (reduce_launch).
std::int64_t reduce_ctas_per_output(const Problem& p, const KernelModel& k) {
    const std::int64_t values = p.block_rows() * p.head_dim;
    return k.reduce_values_per_cta > 0 ? std::min((values + k.reduce_values_per_cta - 1) / k.reduce_values_per_cta, max_reduce_ctas_per_output) : 1;
}

// One reduce CTA: every reduce CTA of a plan runs this same program.
void append_reduce_cta(Builder& b, const Schedule& s, const KernelModel& k) {
    const Problem& p = s.problem;
    const double share = static_cast<double>(s.splits) * partial_bytes(p) / static_cast<double>(reduce_ctas_per_output(p, k));  // of every split's partial
    b.work(k.reduce_cta_ns + share / 1024.0 * k.reduce_ns_per_kb, true);
    b.stream(share, true);
    b.work(k.output_store_ns, true);
}

}  // namespace

LaunchProgram main_launch(const Schedule& s, const KernelModel& k, std::int64_t bytes_per_element) {
    LaunchProgram program;
    program.phases.reserve(static_cast<std::size_t>(s.grid) * 6);
    program.first.reserve(static_cast<std::size_t>(s.grid) + 1);
    Builder b(program);
    MainLaunchPhases phases(s, k, bytes_per_element);
    for (std::int64_t g = 0; g < s.grid; ++g) {
        phases.append(b, g);
        b.end_cta();
    }
    return program;
}

LaunchProgram reduce_launch(const Schedule& s, const KernelModel& k) {
    LaunchProgram program;
    Builder b(program);
    if (s.launches < 2) return program;
    for (std::int64_t c = 0; c < s.problem.outputs() * reduce_ctas_per_output(s.problem, k); ++c) {
        append_reduce_cta(b, s, k);
        b.end_cta();
    }
    return program;
}

void shared_main_launch(const Schedule& s, const KernelModel& k, std::int64_t bytes_per_element, SharedLaunch& out) {
    Builder b(out.programs);
    out.program_of.resize(static_cast<std::size_t>(s.grid));
    MainLaunchPhases phases(s, k, bytes_per_element);
    if (s.strategy == Strategy::stream_k && !s.one_output_per_cta) {  // every CTA its own range of the plan
        for (std::int64_t g = 0; g < s.grid; ++g) {
            phases.append(b, g);
            out.program_of[static_cast<std::size_t>(g)] = b.end_cta();
        }
        return;
    }
    // No-split, fixed-split and stream-k of one output per CTA: CTA g = (output, split), outputs batch-major. Two
    // CTAs run the same program when their requests have the same length and they hold the same split, both a
    // first or both a later row block (its read share), both in the first wave or both after it.
    const Problem& p = s.problem;
    const std::int64_t splits = s.strategy == Strategy::fixed_split ? s.splits : 1, rows = p.row_blocks(), resident = s.device.resident_ctas();
    std::vector<std::int32_t> program_of_kind;  // (splits × 2 × 2), reset per request length
    std::int64_t g = 0;
    for (std::int64_t r = 0; r < p.batch; ++r) {
        if (r == 0 || p.ctx[static_cast<std::size_t>(r)] != p.ctx[static_cast<std::size_t>(r) - 1]) program_of_kind.assign(static_cast<std::size_t>(splits * 4), -1);
        for (std::int64_t h = 0; h < p.kv_heads; ++h) {
            for (std::int64_t block = 0; block < rows; ++block) {
                for (std::int64_t split = 0; split < splits; ++split, ++g) {
                    std::int32_t& program = program_of_kind[static_cast<std::size_t>((split * 2 + (block > 0 ? 1 : 0)) * 2 + (g < resident ? 1 : 0))];
                    if (program < 0) {
                        phases.append(b, g);
                        program = b.end_cta();
                    }
                    out.program_of[static_cast<std::size_t>(g)] = program;
                }
            }
        }
    }
}

void shared_reduce_launch(const Schedule& s, const KernelModel& k, SharedLaunch& out) {
    Builder b(out.programs);
    out.program_of.clear();
    if (s.launches < 2) return;
    append_reduce_cta(b, s, k);
    out.program_of.assign(static_cast<std::size_t>(s.problem.outputs() * reduce_ctas_per_output(s.problem, k)), b.end_cta());
}

}  // namespace leanattn::sim

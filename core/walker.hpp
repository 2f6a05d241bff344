// walker.hpp — which segment does CTA g do next: the one piece of logic the CPU executor, the
// simulator and the CUDA kernel all share (after CUTLASS's tile schedulers).
//
// Compiles as __host__ __device__: no containers, exceptions or allocation. Usage:
//     for (CtaWalker w(plan, g); w.valid(); w.advance()) { Segment s = w.current(); ... }
//
// Iteration space: all LeanTiles laid end to end, batch → kv-head (→ row block) → context. Request b
// occupies [request_offset[b], request_offset[b+1]) = outputs_per_request × request_tiles[b] iterations.
#pragma once

#include <cstdint>

#include "host_device.hpp"
#include "plan_view.hpp"

namespace leanattn {

// A contiguous run [begin, end) of LeanTiles of one output tile, done by one CTA (local to the output).
struct Segment {
    std::int64_t output = -1;
    std::int64_t begin = 0;
    std::int64_t end = 0;
    bool host = false;       // holds the output's first LeanTile: this CTA reduces the output
    bool finishing = false;  // holds the output's last LeanTile
    bool valid = false;
    LEANATTN_HD std::int64_t tiles() const { return end - begin; }
};

struct IterRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
};

namespace plan {

LEANATTN_HD inline std::int64_t outputs(const PlanView& p) { return p.batch * p.outputs_per_request; }

LEANATTN_HD inline std::int64_t output_tiles(const PlanView& p, std::int64_t output) {
    return p.request_tiles[output / p.outputs_per_request];
}

// First global iteration of an output tile.
LEANATTN_HD inline std::int64_t output_offset(const PlanView& p, std::int64_t output) {
    const std::int64_t b = output / p.outputs_per_request;
    return p.request_offset[b] + (output % p.outputs_per_request) * p.request_tiles[b];
}

// The output tile that global iteration `iter` (0 ≤ iter < I) belongs to: binary search over requests.
LEANATTN_HD inline std::int64_t output_of_iteration(const PlanView& p, std::int64_t iter) {
    std::int64_t lo = 0, hi = p.batch;  // invariant: request_offset[lo] ≤ iter < request_offset[hi]
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (p.request_offset[mid] <= iter) lo = mid; else hi = mid;
    }
    return lo * p.outputs_per_request + (iter - p.request_offset[lo]) / p.request_tiles[lo];
}

// stream-k, the paper's rule: CTA g ideally starts at g·q + min(g, r), q = ⌊I/G⌋, r = I mod G, so CTAs
// 0 … r−1 hold ⌈I/G⌉ LeanTiles and the rest ⌊I/G⌋; ideal(G) = I. With G > I (a grid made for longer
// requests walking shorter ones) q = 0: CTA g < I holds LeanTile g, and CTAs I … G−1 start at I, empty.
LEANATTN_HD inline std::int64_t stream_k_ideal_start(const PlanView& p, std::int64_t cta) {
    const std::int64_t q = p.total_tiles / p.grid, r = p.total_tiles % p.grid;
    return cta * q + (cta < r ? cta : r);
}

// The largest g < G with ideal(g) ≤ iter, for 0 ≤ iter < I: the paper's CTA holding `iter`, in O(1).
LEANATTN_HD inline std::int64_t stream_k_ideal_cta_of(const PlanView& p, std::int64_t iter) {
    const std::int64_t q = p.total_tiles / p.grid, r = p.total_tiles % p.grid;
    const std::int64_t long_part = r * (q + 1);  // iterations held by the r CTAs with ⌈I/G⌉
    return iter < long_part ? iter / (q + 1) : r + (iter - long_part) / q;
}

struct NearestBoundary {
    std::int64_t at = 0;        // a global iteration where an output starts (or I)
    std::int64_t distance = 0;  // |x − at|
};

// The output boundary nearest to global iteration x (0 ≤ x ≤ I); of two at the same distance, the earlier.
// 0 and I are boundaries.
LEANATTN_HD inline NearestBoundary nearest_output_boundary(const PlanView& p, std::int64_t x) {
    if (x <= 0 || x >= p.total_tiles) return {x, 0};
    const std::int64_t output = output_of_iteration(p, x);
    const std::int64_t lower = output_offset(p, output);
    const std::int64_t down = x - lower, up = lower + output_tiles(p, output) - x;
    return down <= up ? NearestBoundary{lower, down} : NearestBoundary{x + up, up};
}

// x moved onto the nearest output boundary when it lies within p.snap LeanTiles, otherwise x.
LEANATTN_HD inline std::int64_t snap_to_output_boundary(const PlanView& p, std::int64_t x) {
    const NearestBoundary b = nearest_output_boundary(p, x);
    return b.distance <= p.snap ? b.at : x;
}

// Where CTA g (0 ≤ g ≤ G) starts; its range is [start(g), start(g+1)).
//
// snap = 0 is the paper's plan. snap > 0 (the aligned rule) starts CTA g at snap(ideal(g)). What the
// rest of the plan relies on, and why it holds for any snap and any request arrays:
//  (a) Starts never decrease. Take ideal starts x ≤ y. Both snap: the nearest boundary, with one tie
//      side, is monotone (were nb(x) > nb(y), x would lie past their midpoint and y not, so y < x).
//      Only x snaps, to b: were b > y, y would lie between x and b, within b − x ≤ snap of b, and snap
//      too. Only y snaps, to b: were b < x, x would lie between b and y, within snap of b, and snap too.
//      Neither snaps: x ≤ y.
//  (b) An empty range sits on an output boundary. start(g) = start(g+1) while ideal(g) < ideal(g+1)
//      means one of the two snapped, onto a boundary; CTAs whose ideal start is I (G > I) start at I.
// So, exactly as in the paper's plan: an output's LeanTiles are held by consecutive CTAs (a); the first
// of them (the host, holding LeanTile 0) is the largest g with start(g) ≤ the output's offset, and none
// after it is empty, since an empty one would start strictly inside the output (b); a CTA's segments after
// its first all begin on a boundary, so its first is its only possible non-host segment, and a host that
// does not finish its output holds the CTA's last. The co-residency argument (validate.hpp) uses nothing
// else. Every start lies within snap of its ideal start: the balance the rule gives up is at most 2·snap.
LEANATTN_HD inline std::int64_t stream_k_start(const PlanView& p, std::int64_t cta) {
    const std::int64_t ideal = stream_k_ideal_start(p, cta);
    return p.snap == 0 ? ideal : snap_to_output_boundary(p, ideal);
}

// stream-k: CTA g's LeanTiles, contiguous in iteration order. O(1) for the paper's rule, O(log batch) aligned.
LEANATTN_HD inline IterRange stream_k_range(const PlanView& p, std::int64_t cta) {
    return {stream_k_start(p, cta), stream_k_start(p, cta + 1)};
}

// stream-k: the CTA whose range holds global iteration `iter` (0 ≤ iter < I): the largest g with
// start(g) ≤ iter, which skips empty CTAs. The paper's rule inverts in O(1). Aligned: start(g) lies within
// snap of ideal(g), so the answer lies between the paper's CTAs of iter − snap and iter + snap; a binary
// search there costs O(log(window) · log batch), the window being about 2·snap/q + 2 CTAs.
LEANATTN_HD inline std::int64_t stream_k_cta_of(const PlanView& p, std::int64_t iter) {
    if (p.snap == 0) return stream_k_ideal_cta_of(p, iter);
    // Invariant: start(lo) ≤ iter < start(hi). ideal(lo) ≤ iter − snap gives start(lo) ≤ iter;
    // ideal(hi) > iter + snap gives start(hi) > iter; start(0) = 0 and start(G) = I bound the rest.
    std::int64_t lo = p.snap < iter ? stream_k_ideal_cta_of(p, iter - p.snap) : 0;
    std::int64_t hi = p.snap < p.total_tiles - iter ? stream_k_ideal_cta_of(p, iter + p.snap) + 1 : p.grid;
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (stream_k_start(p, mid) <= iter) lo = mid; else hi = mid;
    }
    return lo;
}

// The CTA that holds an output's first LeanTile and reduces it.
LEANATTN_HD inline std::int64_t host_cta(const PlanView& p, std::int64_t output) {
    switch (p.strategy) {
        case Strategy::stream_k: return stream_k_cta_of(p, output_offset(p, output));
        case Strategy::fixed_split: return output * p.splits;
        case Strategy::no_split: return output;
    }
    return -1;
}

// Contributors of an output: CTAs [host_cta, last) in this order, host first. stream-k (either rule):
// consecutive CTAs, none empty (stream_k_start); fixed-split: the non-empty splits; no-split: the host alone.
LEANATTN_HD inline std::int64_t contributor_count(const PlanView& p, std::int64_t output) {
    const std::int64_t n = output_tiles(p, output);
    switch (p.strategy) {
        case Strategy::stream_k: {
            const std::int64_t first = output_offset(p, output);
            return stream_k_cta_of(p, first + n - 1) - stream_k_cta_of(p, first) + 1;
        }
        case Strategy::fixed_split: return (n + p.chunk - 1) / p.chunk;
        case Strategy::no_split: return 1;
    }
    return 0;
}

// The i-th contributor (0 = host). stream-k and fixed-split both number contributors consecutively.
LEANATTN_HD inline std::int64_t contributor(const PlanView& p, std::int64_t output, std::int64_t i) {
    return host_cta(p, output) + i;
}

// What a CTA needs to know at the end of one of its segments, found from the segment itself instead of the
// plan's inverse maps (which cost a search per call under the aligned rule): a segment is split unless it
// holds its whole output (under every strategy), and the host of a split output is the CTA holding its first
// LeanTile: the very CTA whose segment has host = true. So a host needs one lookup (the CTA holding the
// output's last LeanTile), a peer none.
LEANATTN_HD inline bool segment_is_split(const Segment& s) { return !(s.host && s.finishing); }

// Contributors of the output of host segment `s` of CTA `cta` (host first: cta, cta + 1, …).
LEANATTN_HD inline std::int64_t host_contributors(const PlanView& p, std::int64_t cta, const Segment& s) {
    if (s.finishing) return 1;
    if (p.strategy == Strategy::stream_k) return stream_k_cta_of(p, output_offset(p, s.output) + output_tiles(p, s.output) - 1) - cta + 1;
    return contributor_count(p, s.output);
}

}  // namespace plan

// Walks one CTA's segments in order. stream-k: consecutive outputs from the CTA's iteration range;
// fixed-split: at most one segment (an empty chunk yields none: the CTA exits at once); no-split: one.
class CtaWalker {
public:
    LEANATTN_HD CtaWalker(const PlanView& plan, std::int64_t cta) : plan_(plan) {
        switch (plan.strategy) {
            case Strategy::stream_k: {
                const IterRange r = plan::stream_k_range(plan, cta);
                cursor_ = r.begin;
                end_ = r.end;
                break;
            }
            case Strategy::fixed_split: {
                const std::int64_t output = cta / plan.splits, split = cta % plan.splits;
                const std::int64_t n = plan::output_tiles(plan, output);
                const std::int64_t offset = plan::output_offset(plan, output);
                const std::int64_t b = split * plan.chunk;
                const std::int64_t e = b + plan.chunk < n ? b + plan.chunk : n;
                cursor_ = offset + b;
                end_ = b < n ? offset + e : cursor_;  // empty chunk: nothing to do
                break;
            }
            case Strategy::no_split: {
                cursor_ = plan::output_offset(plan, cta);
                end_ = cursor_ + plan::output_tiles(plan, cta);
                break;
            }
        }
        load();
    }

    // stream-k: a CTA whose range [start(g), start(g + 1)) the caller found itself (the CUDA kernels find its
    // two ends on two lanes at once); the same walk as CtaWalker(plan, g).
    LEANATTN_HD CtaWalker(const PlanView& plan, IterRange stream_k_range) : plan_(plan), cursor_(stream_k_range.begin), end_(stream_k_range.end) {
        load();
    }

    LEANATTN_HD bool valid() const { return current_.valid; }
    LEANATTN_HD const Segment& current() const { return current_; }
    LEANATTN_HD const PlanView& plan() const { return plan_; }
    LEANATTN_HD void advance() {
        cursor_ = output_end_;
        load();
    }

private:
    LEANATTN_HD void load() {
        current_ = Segment{};
        if (cursor_ >= end_) return;
        const std::int64_t output = plan::output_of_iteration(plan_, cursor_);
        const std::int64_t first = plan::output_offset(plan_, output);
        output_end_ = first + plan::output_tiles(plan_, output);
        const std::int64_t stop = end_ < output_end_ ? end_ : output_end_;
        current_.output = output;
        current_.begin = cursor_ - first;
        current_.end = stop - first;
        current_.host = cursor_ == first;
        current_.finishing = stop == output_end_;
        current_.valid = true;
    }

    PlanView plan_;
    std::int64_t cursor_ = 0;      // next global iteration to do
    std::int64_t end_ = 0;         // end of this CTA's range
    std::int64_t output_end_ = 0;  // end of the current output's iterations
    Segment current_;
};

}  // namespace leanattn

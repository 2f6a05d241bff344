#include "cta_program.hpp"

#include <algorithm>

#include "core/cost_estimate.hpp"
#include "core/walker.hpp"

namespace leanattn::sim {

namespace {

class Builder {
public:
    explicit Builder(LaunchProgram& program) : program_(program) { program_.first.push_back(0); }
    void work(double ns, bool reduction = false, bool signals = false) {
        program_.phases.push_back({PhaseKind::work, reduction, signals, ns, 0.0, 0.0, -1, -1});
    }
    void stream(double bytes, bool reduction = false, double min_ns = 0.0, double loss = 0.0, std::int64_t output = -1) {
        program_.phases.push_back({PhaseKind::stream, reduction, false, bytes, min_ns, loss, -1, output});
    }
    void wait(std::int64_t peer) { program_.phases.push_back({PhaseKind::wait, true, false, 0.0, 0.0, 0.0, peer, -1}); }
    void end_cta() { program_.first.push_back(static_cast<std::int64_t>(program_.phases.size())); }

private:
    LaunchProgram& program_;
};

double partial_store(const KernelModel& k, const Problem& p) { return k.partial_store_ns + partial_bytes(p) / 1024.0 * k.partial_store_ns_per_kb; }

// A stream-k host of a split output: its peers' partials, then its output (Algorithm 2, lines 25–36).
void host_merge(Builder& b, const KernelModel& k, const Problem& p, const PlanView& plan, std::int64_t output) {
    const std::int64_t contributors = plan::contributor_count(plan, output);
    const double per_peer = k.merge_ns_per_partial + partial_bytes(p) / 1024.0 * k.merge_ns_per_kb;
    if (k.merge == MergeOrder::serial) {
        for (std::int64_t i = 1; i < contributors; ++i) {
            b.wait(plan::contributor(plan, output, i));
            b.work(k.merge_ns + per_peer, true);
        }
    } else {
        for (std::int64_t i = 1; i < contributors; ++i) b.wait(plan::contributor(plan, output, i));
        b.work(k.merge_ns + static_cast<double>(contributors - 1) * per_peer, true);
    }
    b.work(k.output_store_ns);
}

// The share of a segment's K and V bytes read from HBM. A later row block of a KV head mostly hits the L2: the
// CTAs of its neighbouring blocks read the same tokens at about the same time. Not when this CTA read the block
// before it itself, just before: the other CTAs' reads have cycled the L2 in between (measured on an H100: a CTA
// holding a head's three blocks in turn took 2.49 us per LeanTile, no-split's CTAs of one head, side by side, 1.63).
double reread_share(const KernelModel& k, const Problem& p, std::int64_t output, std::int64_t previous_output) {
    if (p.first_row_of(output) == 0) return 1.0;
    return previous_output == output - 1 ? 1.0 : k.reread_fraction;
}

}  // namespace

LaunchProgram main_launch(const Schedule& s, const KernelModel& k, std::int64_t bytes_per_element) {
    const Problem& p = s.problem;
    const PlanView plan = s.view();
    const double token_bytes = static_cast<double>(p.head_dim * 2 * bytes_per_element);
    const double row_blocks = static_cast<double>((p.block_rows() + 15) / 16);
    // A stream-k plan whose CTAs each hold one whole output is walked as no-split (one lookup); any other
    // searches the plan for its range first.
    const double walk = s.strategy == Strategy::stream_k && !s.one_output_per_cta ? k.stream_k_walk_ns : 0.0;
    LaunchProgram program;
    program.phases.reserve(static_cast<std::size_t>(s.grid) * 6);
    program.first.reserve(static_cast<std::size_t>(s.grid) + 1);
    Builder b(program);
    for (std::int64_t g = 0; g < s.grid; ++g) {
        // CTAs dispatch in grid order: the first resident_ctas() are the first wave, there before the live plan.
        b.work(k.cta_setup_ns + walk + (g < s.device.resident_ctas() ? k.plan_wait_ns : 0.0));
        bool any = false;
        std::int64_t previous_output = -1;
        for (CtaWalker w(plan, g); w.valid(); w.advance()) {
            if (any) b.work(k.segment_ns);
            any = true;
            const Segment seg = w.current();
            const std::int64_t ctx = p.ctx[static_cast<std::size_t>(p.request_of(seg.output))];
            const double tokens = static_cast<double>(std::min(seg.end * p.tile, ctx) - seg.begin * p.tile);
            const double reread = reread_share(k, p, seg.output, previous_output);
            previous_output = seg.output;
            if (k.compute_overlaps_loads) {
                const double fill = k.pipeline_fills_per_segment * k.bytes_in_flight_per_sm;
                b.stream(tokens * token_bytes * reread + fill, false, compute_ns(k, p, tokens, bytes_per_element), k.compute_overlap_loss, seg.output);
            } else {
                b.stream(tokens * token_bytes * reread, false, 0.0, 0.0, seg.output);
                b.work(static_cast<double>(seg.tiles()) * row_blocks * k.tile_compute_ns);  // whole LeanTiles, the last one too
            }
            if (s.strategy == Strategy::fixed_split && s.splits > 1) {
                b.work(partial_store(k, p), true);  // every split, host included, leaves a partial for the reduce kernel
            } else if (!seg.host) {
                b.work(partial_store(k, p), true, true);  // stream-k peer: partial, fence, flag
            } else if (!seg.finishing) {
                host_merge(b, k, p, plan, seg.output);
            } else {
                b.work(k.output_store_ns);
            }
        }
        // A fixed-split chunk beyond a short request's end still runs: FlashAttention-2 writes an empty
        // partial (O = 0, LSE = −∞) so that the reduce kernel reads defined values.
        if (!any && s.strategy == Strategy::fixed_split && s.splits > 1) b.work(partial_store(k, p), true);
        b.end_cta();
    }
    return program;
}

LaunchProgram reduce_launch(const Schedule& s, const KernelModel& k) {
    LaunchProgram program;
    Builder b(program);
    if (s.launches < 2) return program;
    const Problem& p = s.problem;
    const std::int64_t values = p.block_rows() * p.head_dim;
    const std::int64_t per_output =
        k.reduce_values_per_cta > 0 ? std::min((values + k.reduce_values_per_cta - 1) / k.reduce_values_per_cta, max_reduce_ctas_per_output) : 1;
    const double share = static_cast<double>(s.splits) * partial_bytes(p) / static_cast<double>(per_output);  // of every split's partial
    for (std::int64_t o = 0; o < p.outputs() * per_output; ++o) {
        b.work(k.reduce_cta_ns + share / 1024.0 * k.reduce_ns_per_kb, true);
        b.stream(share, true);
        b.work(k.output_store_ns, true);
        b.end_cta();
    }
    return program;
}

}  // namespace leanattn::sim

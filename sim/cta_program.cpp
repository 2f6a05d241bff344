#include "cta_program.hpp"

#include <algorithm>

#include "core/walker.hpp"

namespace leanattn::sim {

namespace {

// Query rows of one output tile: q_len tokens × the group of query heads sharing its KV head.
std::int64_t rows(const Problem& p) { return p.q_len * p.group(); }

class Builder {
public:
    explicit Builder(LaunchProgram& program) : program_(program) { program_.first.push_back(0); }
    void work(double ns, bool reduction = false, bool signals = false) {
        program_.phases.push_back({PhaseKind::work, reduction, signals, ns, -1});
    }
    void stream(double bytes, bool reduction = false) { program_.phases.push_back({PhaseKind::stream, reduction, false, bytes, -1}); }
    void wait(std::int64_t peer) { program_.phases.push_back({PhaseKind::wait, true, false, 0.0, peer}); }
    void end_cta() { program_.first.push_back(static_cast<std::int64_t>(program_.phases.size())); }

private:
    LaunchProgram& program_;
};

}  // namespace

LaunchProgram main_launch(const Schedule& s, std::int64_t bytes_per_element) {
    const Problem& p = s.problem;
    const DeviceTiming& t = s.device.timing;
    const PlanView plan = s.view();
    const double token_bytes = static_cast<double>(p.head_dim * 2 * bytes_per_element);
    const double row_blocks = static_cast<double>((rows(p) + 15) / 16);
    LaunchProgram program;
    program.phases.reserve(static_cast<std::size_t>(s.grid) * 6);
    program.first.reserve(static_cast<std::size_t>(s.grid) + 1);
    Builder b(program);
    for (std::int64_t g = 0; g < s.grid; ++g) {
        b.work(t.cta_startup_ns);
        bool any = false;
        for (CtaWalker w(plan, g); w.valid(); w.advance()) {
            any = true;
            const Segment seg = w.current();
            const std::int64_t ctx = p.ctx[static_cast<std::size_t>(p.request_of(seg.output))];
            const std::int64_t tokens = std::min(seg.end * p.tile, ctx) - seg.begin * p.tile;
            b.stream(static_cast<double>(tokens) * token_bytes);
            b.work(static_cast<double>(seg.tiles()) * row_blocks * t.tile_compute_ns);
            if (s.strategy == Strategy::fixed_split && s.splits > 1) {
                b.work(t.partial_store_ns, true);  // every split, host included, leaves a partial for the reduce kernel
            } else if (!seg.host) {
                b.work(t.partial_store_ns, true, true);  // stream-k peer: partial, fence, flag
            } else if (!seg.finishing) {
                // stream-k host of a split output (Algorithm 2, lines 25–36): peers in CTA order, one at a time.
                const std::int64_t contributors = plan::contributor_count(plan, seg.output);
                for (std::int64_t i = 1; i < contributors; ++i) {
                    b.wait(plan::contributor(plan, seg.output, i));
                    b.work(t.flag_wait_ns + t.reduce_per_partial_ns, true);
                }
                b.work(t.output_store_ns);
            } else {
                b.work(t.output_store_ns);
            }
        }
        // A fixed-split chunk beyond a short request's end still runs: FlashAttention-2 writes an empty
        // partial (O = 0, LSE = −∞) so that the reduce kernel reads defined values.
        if (!any && s.strategy == Strategy::fixed_split && s.splits > 1) b.work(t.partial_store_ns, true);
        b.end_cta();
    }
    return program;
}

LaunchProgram reduce_launch(const Schedule& s) {
    LaunchProgram program;
    Builder b(program);
    if (s.launches < 2) return program;
    const Problem& p = s.problem;
    const DeviceTiming& t = s.device.timing;
    const double partial_bytes = static_cast<double>(s.splits * rows(p) * (p.head_dim + 2) * 4);
    for (std::int64_t o = 0; o < p.outputs(); ++o) {
        b.work(t.cta_startup_ns, true);
        b.stream(partial_bytes, true);
        b.work(t.output_store_ns, true);
        b.end_cta();
    }
    return program;
}

}  // namespace leanattn::sim

#include "trace.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/walker.hpp"

namespace leanattn::cuda {

std::int64_t trace_segments_per_cta(const PlanView& live) {
    std::int64_t most = 1;
    for (std::int64_t g = 0; g < live.grid; ++g) {
        std::int64_t n = 0;
        for (CtaWalker w(live, g); w.valid(); w.advance()) ++n;
        most = std::max(most, n);
    }
    return most;
}

std::string_view segment_role_name(SegmentRole role) {
    switch (role) {
        case SegmentRole::store: return "store";
        case SegmentRole::partial: return "partial";
        case SegmentRole::reduce: return "reduce";
        case SegmentRole::shared: return "shared";
    }
    return "unknown";
}

namespace {

[[noreturn]] void broken(std::int64_t cta, const std::string& why) { throw std::runtime_error("trace of CTA " + std::to_string(cta) + ": " + why); }

std::int64_t since(std::uint64_t t, std::uint64_t origin) { return static_cast<std::int64_t>(t - origin); }

}  // namespace

KernelTrace assemble_trace(const Schedule& plan, const PlanView& live, const std::vector<TraceCtaRecord>& ctas,
                           const std::vector<TraceSegmentRecord>& segments, std::int64_t segments_per_cta, const StepTable* step) {
    if (static_cast<std::int64_t>(ctas.size()) != live.grid || static_cast<std::int64_t>(segments.size()) != live.grid * segments_per_cta) {
        throw std::runtime_error("trace: the records do not cover the plan's grid");
    }
    std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
    for (const TraceCtaRecord& c : ctas) origin = std::min(origin, c.start_ns);

    KernelTrace trace;
    trace.strategy = plan.strategy;
    trace.grid = live.grid;
    trace.snap = plan.snap;
    trace.splits = plan.splits;
    trace.total_tiles = live.total_tiles;
    for (std::int64_t g = 0; g < live.grid; ++g) {
        const TraceCtaRecord& rec = ctas[static_cast<std::size_t>(g)];
        if (!(rec.start_ns <= rec.plan_wait_ns && rec.plan_wait_ns <= rec.plan_ready_ns && rec.plan_ready_ns <= rec.end_ns)) {
            broken(g, "its start, plan and end marks are out of order");
        }
        CtaTimes cta;
        cta.cta = g;
        cta.sm = rec.sm;
        cta.start_ns = since(rec.start_ns, origin);
        cta.plan_wait_ns = since(rec.plan_wait_ns, origin);
        cta.plan_ready_ns = since(rec.plan_ready_ns, origin);
        cta.end_ns = since(rec.end_ns, origin);
        std::int64_t i = 0;
        for (CtaWalker w(live, g); w.valid(); w.advance(), ++i) {
            if (i >= segments_per_cta) broken(g, "more segments than the buffer holds");
            const Segment& s = w.current();
            const TraceSegmentRecord& r = segments[static_cast<std::size_t>(g * segments_per_cta + i)];
            SegmentTimes t;
            t.segment = s;
            t.batch = plan.problem.request_of(s.output);
            t.kv_head = plan.problem.kv_head_of(s.output);
            t.contributors = plan::contributor_count(live, s.output);
            t.role = t.contributors == 1 ? SegmentRole::store : (s.host && plan.fused_reduction() ? SegmentRole::reduce : SegmentRole::partial);
            if (step != nullptr) {
                const int at = step->cta_first[g] + static_cast<int>(i);
                if (at >= step->cta_first[g + 1] || step->segments[at].output != s.output) broken(g, "the step's table does not hold the plan's segments");
                if ((step->segments[at].role & TableSegment::share_mask) != 0) t.role = SegmentRole::shared;
            }
            if (!(rec.plan_ready_ns <= r.stream_begin_ns && r.stream_begin_ns <= r.stream_end_ns && r.stream_end_ns <= r.finish_end_ns &&
                  r.finish_end_ns <= rec.end_ns)) {
                broken(g, "segment " + std::to_string(i) + "'s phases are out of order");
            }
            t.stream_begin_ns = since(r.stream_begin_ns, origin);
            t.stream_end_ns = since(r.stream_end_ns, origin);
            t.finish_end_ns = since(r.finish_end_ns, origin);
            if (r.wait_begin_ns != 0) {
                if (!(r.stream_end_ns <= r.wait_begin_ns && r.wait_begin_ns <= r.wait_end_ns && r.wait_end_ns <= r.finish_end_ns)) {
                    broken(g, "segment " + std::to_string(i) + "'s wait lies outside its merge/store");
                }
                t.wait_begin_ns = since(r.wait_begin_ns, origin);
                t.wait_end_ns = since(r.wait_end_ns, origin);
            }
            cta.segments.push_back(t);
        }
        if (rec.segments != static_cast<std::uint64_t>(i)) {
            broken(g, "the kernel walked " + std::to_string(rec.segments) + " segments, the plan gives " + std::to_string(i));
        }
        trace.makespan_ns = std::max(trace.makespan_ns, cta.end_ns);
        trace.ctas.push_back(std::move(cta));
    }
    return trace;
}

}  // namespace leanattn::cuda

#include "step_table.hpp"

#include <cstdint>
#include <vector>

#include "core/live_plan.hpp"
#include "core/walker.hpp"

namespace leanattn::cuda {

bool make_step_table(const Schedule& plan, const KvCacheView& kv, const std::int32_t* seqlens, StepTable& step, bool keep_snap) {
    const std::int64_t batch = plan.problem.batch, per_request = plan.problem.outputs_per_request(), tile = plan.problem.tile;
    if (plan.grid > max_table_ctas || plan.problem.outputs() > INT32_MAX) return false;  // entries hold int32 output ids
    // The walk the device would do at these lengths: core's live_view (the snap re-checked, one output per CTA
    // walked as no-split), then every CTA's segments through the core's walker.
    // Kept from call to call: a step's host time is what an engine pays every step (bench_cuda_run_overhead).
    static thread_local std::vector<std::int64_t> request_tiles, request_offset;
    request_tiles.resize(static_cast<std::size_t>(batch));
    request_offset.resize(request_tiles.size() + 1);
    const PlanView live = live_view(plan, kv, seqlens, request_tiles.data(), request_offset.data(), keep_snap);
    int count = 0;
    for (std::int64_t g = 0; g < plan.grid; ++g) {
        step.cta_first[g] = static_cast<std::uint16_t>(count);
        for (CtaWalker walker(live, g); walker.valid(); walker.advance()) {
            if (count == max_table_segments) return false;
            const Segment& seg = walker.current();
            const std::int64_t tokens = tensors::live_tokens(kv, seqlens, seg.output / per_request);
            const std::int64_t end = seg.end * tile < tokens ? seg.end * tile : tokens;
            // A host's count of contributors (itself first): the CTAs the kernel waits for under stream-k, the splits
            // fixed-split's reduce kernel merges. Only a host of an output it does not hold whole has more than one.
            const std::int64_t contributors = seg.host && !seg.finishing ? plan::host_contributors(live, g, seg) : 1;
            TableSegment& out = step.segments[count++];
            out.output = static_cast<std::int32_t>(seg.output);
            out.tok_begin = static_cast<std::int32_t>(seg.begin * tile);
            out.tok_end = static_cast<std::int32_t>(end);
            out.tokens = static_cast<std::int32_t>(tokens);
            out.role = static_cast<std::uint32_t>(contributors) | (seg.host ? TableSegment::host_bit : 0u) |
                       (seg.finishing ? TableSegment::finishing_bit : 0u);
        }
    }
    step.cta_first[plan.grid] = static_cast<std::uint16_t>(count);
    step.grid = static_cast<std::int32_t>(plan.grid);
    step.empty_requests = 0;
    for (std::int64_t b = 0; b < batch; ++b) {
        if (request_tiles[static_cast<std::size_t>(b)] != 0) continue;
        if (count == max_table_segments) return false;
        step.segments[count++] = TableSegment{.output = static_cast<std::int32_t>(b)};
        ++step.empty_requests;
    }
    if (plan.fused_reduction()) mark_shared_merges(step);
    return true;
}

bool stageable(const Schedule& plan) {
    const std::int64_t outputs = plan.problem.outputs();
    const std::int64_t segments = plan.grid + (plan.strategy == Strategy::stream_k ? outputs - 1 : 0);
    return plan.grid <= max_table_ctas && outputs <= INT32_MAX && segments <= max_table_segments;
}

void mark_shared_merges(StepTable& step) {
    const auto segments_of = [&](std::int64_t g) { return step.cta_first[g + 1] - step.cta_first[g]; };
    for (std::int64_t h = 0; h < step.grid; ++h) {
        if (segments_of(h) != 1) continue;
        TableSegment& host = step.segments[step.cta_first[h]];
        const std::uint32_t contributors = host.role & TableSegment::contributor_mask;
        if ((host.role & TableSegment::host_bit) == 0 || contributors < 2) continue;
        bool alone = true;  // every peer's one segment is its part of this output
        for (std::int64_t g = h + 1; g < h + contributors && alone; ++g) alone = segments_of(g) == 1;
        if (!alone) continue;
        for (std::uint32_t k = 0; k < contributors; ++k) {
            TableSegment& part = step.segments[step.cta_first[h + k]];
            part.role = (part.role & ~(TableSegment::contributor_mask | TableSegment::share_mask)) | contributors | ((k + 1) << TableSegment::share_shift);
        }
    }
}

}  // namespace leanattn::cuda

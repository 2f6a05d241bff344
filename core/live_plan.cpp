#include "live_plan.hpp"

#include <stdexcept>

namespace leanattn {

namespace {

// live_view's work, each request's live tokens given by `tokens_of(b)`.
template <typename TokensOf>
PlanView live_view_of(const Schedule& s, TokensOf tokens_of, std::int64_t* request_tiles, std::int64_t* request_offset, bool keep_snap = false) {
    PlanView v = s.view();
    const std::int64_t batch = s.problem.batch, outputs_per_request = s.problem.outputs_per_request();
    std::int64_t longest = 0;
    request_offset[0] = 0;
    for (std::int64_t b = 0; b < batch; ++b) {
        request_tiles[b] = plan::tiles_for(tokens_of(b), s.problem.tile);
        request_offset[b + 1] = request_offset[b] + outputs_per_request * request_tiles[b];
        longest = request_tiles[b] > longest ? request_tiles[b] : longest;
    }
    v.request_tiles = request_tiles;
    v.request_offset = request_offset;
    v.total_tiles = request_offset[batch];
    if (v.strategy == Strategy::fixed_split) v.chunk = plan::fixed_split_chunk(longest, v.splits);
    // At the plan's own lengths (the same total: no request can be longer) the snap stands as chosen.
    if (v.strategy == Strategy::stream_k && v.snap > 0 && !keep_snap && v.total_tiles != s.total_tiles && !plan::keeps_snap(v, plan::stream_k_max_load(v))) v.snap = 0;
    if (v.strategy == Strategy::stream_k && (v.total_tiles == s.total_tiles ? v.capacity_one_output_per_cta : plan::one_output_per_cta(v))) {
        v.strategy = Strategy::no_split;
    }
    return v;
}

}  // namespace

PlanView live_view(const Schedule& s, const KvCacheView& kv, const std::int32_t* seqlens, std::int64_t* request_tiles,
                   std::int64_t* request_offset, bool keep_snap) {
    return live_view_of(s, [&](std::int64_t b) { return tensors::live_tokens(kv, seqlens, b); }, request_tiles, request_offset, keep_snap);
}

Schedule live_schedule(const Schedule& s, const std::vector<std::int64_t>& live) {
    if (static_cast<std::int64_t>(live.size()) != s.problem.batch) throw std::invalid_argument("live_schedule: one length per request");
    for (std::size_t b = 0; b < live.size(); ++b) {
        if (live[b] < s.problem.q_len || live[b] > s.problem.ctx[b]) throw std::invalid_argument("live_schedule: a length outside [q_len, capacity]");
    }
    Schedule out = s;
    const PlanView v = live_view_of(s, [&](std::int64_t b) { return live[static_cast<std::size_t>(b)]; }, out.request_tiles.data(), out.request_offset.data());
    out.problem.ctx = live;
    out.total_tiles = v.total_tiles;
    out.chunk = v.chunk;
    out.snap = v.snap;
    out.strategy = v.strategy;  // a stream-k step whose CTAs each hold one whole output walks as no-split
    out.one_output_per_cta = false;  // so a stream-k step that stays one never holds one output per CTA
    return out;
}

}  // namespace leanattn

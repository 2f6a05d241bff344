#include "live_plan.hpp"

namespace leanattn {

PlanView live_view(const Schedule& s, const KvCacheView& kv, const std::int32_t* seqlens, std::int64_t* request_tiles,
                   std::int64_t* request_offset) {
    PlanView v = s.view();
    const std::int64_t batch = s.problem.batch, outputs_per_request = s.problem.outputs_per_request();
    std::int64_t longest = 0;
    request_offset[0] = 0;
    for (std::int64_t b = 0; b < batch; ++b) {
        request_tiles[b] = plan::tiles_for(tensors::live_tokens(kv, seqlens, b), s.problem.tile);
        request_offset[b + 1] = request_offset[b] + outputs_per_request * request_tiles[b];
        longest = request_tiles[b] > longest ? request_tiles[b] : longest;
    }
    v.request_tiles = request_tiles;
    v.request_offset = request_offset;
    v.total_tiles = request_offset[batch];
    if (v.strategy == Strategy::fixed_split) v.chunk = plan::fixed_split_chunk(longest, v.splits);
    // At the plan's own lengths (the same total: no request can be longer) the snap stands as chosen.
    if (v.strategy == Strategy::stream_k && v.snap > 0 && v.total_tiles != s.total_tiles && !plan::keeps_snap(v, plan::stream_k_max_load(v))) v.snap = 0;
    if (v.strategy == Strategy::stream_k && (v.total_tiles == s.total_tiles ? v.capacity_one_output_per_cta : plan::one_output_per_cta(v))) {
        v.strategy = Strategy::no_split;
    }
    return v;
}

}  // namespace leanattn

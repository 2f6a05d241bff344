#include "convert.hpp"

#include <string>

#include "core/cost_estimate.hpp"
#include "core/input_error.hpp"
#include "resource_limits.hpp"

namespace leanattn::capi {

Problem to_problem(const leanattn_problem* in, const CostLimits& limits) {
    if (in == nullptr) throw InputError("problem", "is NULL");
    if (in->ctx == nullptr) throw InputError("problem.ctx", "is NULL (give one context length per request)");
    if (in->batch <= 0 || in->batch > (std::int64_t{1} << 26)) throw InputError({{"batch", std::to_string(in->batch)}}, "must lie in 1..67108864");
    check_cost(request_list_cost(in->batch), limits);  // before the ctx list is copied
    Problem p;
    p.batch = in->batch;
    p.q_heads = in->q_heads;
    p.kv_heads = in->kv_heads;
    p.head_dim = in->head_dim;
    p.q_len = in->q_len != 0 ? in->q_len : 1;
    p.tile = in->tile != 0 ? in->tile : default_tile(in->head_dim);
    p.tile_rows = in->tile_rows;
    p.ctx.assign(in->ctx, in->ctx + in->batch);
    check_problem(p);
    return p;
}

DType to_dtype(leanattn_dtype dtype) {
    switch (dtype) {
        case LEANATTN_FP32: return DType::fp32;
        case LEANATTN_FP16: return DType::fp16;
        case LEANATTN_BF16: return DType::bf16;
    }
    throw InputError("dtype " + std::to_string(static_cast<int>(dtype)), "expected LEANATTN_FP32, LEANATTN_FP16 or LEANATTN_BF16");
}

Strategy to_strategy(const char* name) {
    if (name == nullptr) return Strategy::stream_k;
    if (std::string(name) == "auto") return Strategy::stream_k;  // leanattn_plan_create replaces it by the choice
    if (const auto s = parse_strategy(name)) return *s;
    throw InputError({{"strategy", name}}, "expected stream-k, fixed-split, no-split or auto");
}

bool wants_auto(const leanattn_plan_options* in) { return in != nullptr && in->strategy != nullptr && std::string(in->strategy) == "auto"; }

app::StepLengths to_step_lengths(const leanattn_plan_options* in) {
    if (in == nullptr || in->lengths == nullptr) return app::StepLengths::device;
    const std::string lengths = in->lengths;
    if (lengths == "device") return app::StepLengths::device;
    if (lengths == "host") return app::StepLengths::host;
    throw InputError({{"lengths", lengths}}, "expected \"device\" or \"host\"");
}

PlanOptions to_plan_options(const leanattn_plan_options* in) {
    PlanOptions o;
    if (in == nullptr) return o;
    o.strategy = to_strategy(in->strategy);
    o.splits = in->splits;
    o.grid = in->grid;
    // As the CLI's --stream-k-rule and --snap: a stream-k option given to another strategy is refused, not dropped.
    if ((in->stream_k_rule != nullptr || in->snap != 0) && o.strategy != Strategy::stream_k) {
        throw InputError({{in->stream_k_rule != nullptr ? "stream_k_rule" : "snap", in->stream_k_rule != nullptr ? in->stream_k_rule : std::to_string(in->snap)}},
                         "only applies to strategy \"stream-k\" or \"auto\"");
    }
    if (in->stream_k_rule != nullptr) {
        const auto rule = parse_stream_k_rule(in->stream_k_rule);
        if (!rule) throw InputError({{"stream_k_rule", in->stream_k_rule}}, "expected aligned or paper");
        o.stream_k_rule = *rule;
    }
    if (in->snap < 0) throw InputError({{"snap", std::to_string(in->snap)}}, "must be 0 (the cost model's choice) or a positive LeanTile count");
    if (in->snap > 0) o.snap = in->snap;
    return o;
}

DecodeTensors to_tensors(const leanattn_tensors* in, DType dtype) {
    if (in == nullptr) throw InputError("tensors", "is NULL");
    DecodeTensors t;
    t.dtype = dtype;
    t.q = {in->q.data, in->q.stride_batch, in->q.stride_token, in->q.stride_head};
    t.o = {in->out.data, in->out.stride_batch, in->out.stride_token, in->out.stride_head};
    t.lse = {in->lse.data, in->lse.stride_batch, in->lse.stride_head, in->lse.stride_token};
    const leanattn_kv_cache& c = in->kv;
    KvCacheView& kv = t.kv;
    kv.k = c.k;
    kv.v = c.v;
    switch (c.layout) {
        case LEANATTN_KV_STRIDED: kv.layout = KvLayout::strided; break;
        case LEANATTN_KV_PAGED: kv.layout = KvLayout::paged; break;
        case LEANATTN_KV_RAGGED: kv.layout = KvLayout::ragged; break;
        default: throw InputError("kv.layout " + std::to_string(static_cast<int>(c.layout)), "expected strided, paged or ragged");
    }
    kv.stride_request = c.stride_request, kv.stride_token = c.stride_token, kv.stride_head = c.stride_head;
    kv.capacity = c.capacity;
    kv.block_table = c.block_table, kv.block_table_stride = c.block_table_stride, kv.block_size = c.block_size, kv.num_blocks = c.num_blocks;
    kv.cu_seqlens = c.cu_seqlens;
    t.seqlens = in->seqlens;
    t.softmax_scale = in->softmax_scale;
    return t;
}

}  // namespace leanattn::capi

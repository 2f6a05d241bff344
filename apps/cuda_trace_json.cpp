#include "cuda_trace_json.hpp"

#include <string>

#include "problem_json.hpp"

namespace leanattn::app {

namespace {

using json = nlohmann::ordered_json;

json interval(std::int64_t begin, std::int64_t end) { return json::array({begin, end}); }

json segment_json(const cuda::SegmentTimes& s) {
    return {{"output", s.segment.output},
            {"batch", s.batch},
            {"kv_head", s.kv_head},
            {"begin", s.segment.begin},
            {"end", s.segment.end},
            {"host", s.segment.host},
            {"finishing", s.segment.finishing},
            {"contributors", s.contributors},
            {"role", std::string(cuda::segment_role_name(s.role))},
            {"stream", interval(s.stream_begin_ns, s.stream_end_ns)},
            {"wait", s.wait_begin_ns < 0 ? json(nullptr) : interval(s.wait_begin_ns, s.wait_end_ns)},
            {"merge_store", interval(s.stream_end_ns, s.finish_end_ns)}};
}

json kernel_json(const cuda::KernelTrace& k) {
    json ctas = json::array();
    for (const cuda::CtaTimes& c : k.ctas) {
        json segments = json::array();
        for (const cuda::SegmentTimes& s : c.segments) segments.push_back(segment_json(s));
        ctas.push_back({{"cta", c.cta}, {"sm", c.sm}, {"start", c.start_ns}, {"plan_wait", c.plan_wait_ns}, {"plan_ready", c.plan_ready_ns}, {"end", c.end_ns}, {"segments", std::move(segments)}});
    }
    json out = {{"strategy", std::string(strategy_name(k.strategy))}, {"grid", k.grid}};
    // What remakes the very plan that ran (simulate --trace): the grid alone leaves stream-k's snap to the rule.
    if (k.strategy == Strategy::stream_k) out["snap"] = k.snap;
    if (k.strategy == Strategy::fixed_split) out["splits"] = k.splits;
    out["total_tiles"] = k.total_tiles;
    out["makespan"] = k.makespan_ns;
    out["ctas"] = std::move(ctas);
    return out;
}

}  // namespace

json cuda_trace_json(const cuda::HarnessCase& c, const cuda::Benchmark& b) {
    const Problem& p = c.problem;
    json kernels = json::array();
    for (const cuda::KernelTrace& k : b.traces) kernels.push_back(kernel_json(k));
    return {{"time_unit", "ns"},
            {"time_origin", "each kernel's first CTA start"},
            {"device", {{"name", b.device.name}, {"sms", b.device.sms}, {"ctas_per_sm", b.device.ctas_per_sm}}},
            {"problem", problem_to_json(p)},
            {"dtype", std::string(dtype_name(c.dtype))},
            {"layout", std::string(cache_layout_name(c.layout))},
            {"lengths", c.host_lengths ? "host" : "device"},
            {"kernels", std::move(kernels)}};
}

}  // namespace leanattn::app

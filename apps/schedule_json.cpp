#include "schedule_json.hpp"

#include "problem_json.hpp"

namespace leanattn::app {

using nlohmann::ordered_json;

ordered_json schedule_to_json(const Schedule& s, const ScheduleTable& t) {
    const Problem& p = s.problem;
    ordered_json j;
    j["strategy"] = std::string(strategy_name(s.strategy));
    j["grid"] = s.grid;
    j["launches"] = s.launches;
    j["total_tiles"] = s.total_tiles;
    if (s.narrow_streams) j["narrow_streams"] = true;  // leanattn's GPU kernel reads it with half its warps (core/schedule.hpp)
    if (s.strategy == Strategy::stream_k) {
        j["stream_k_rule"] = std::string(stream_k_rule_name(s.stream_k_rule));
        j["snap_tiles"] = s.snap;
    }
    if (s.strategy == Strategy::fixed_split) {
        j["splits"] = s.splits;
        j["chunk"] = s.chunk;
    }
    j["device"] = {{"name", s.device.name}, {"sms", s.device.sms}, {"ctas_per_sm", s.device.ctas_per_sm}};
    j["problem"] = problem_to_json(p);
    ordered_json ctas = ordered_json::array();
    for (const CtaRow& row : t.ctas) {
        ordered_json segments = ordered_json::array();
        for (const Segment& seg : row.segments) {
            segments.push_back({{"output", seg.output}, {"batch", p.request_of(seg.output)}, {"kv_head", p.kv_head_of(seg.output)},
                                {"begin", seg.begin}, {"end", seg.end}, {"host", seg.host}, {"finishing", seg.finishing}});
        }
        ctas.push_back({{"cta", row.cta}, {"sm", row.sm}, {"tiles", row.tiles}, {"segments", std::move(segments)}});
    }
    j["ctas"] = std::move(ctas);
    ordered_json outputs = ordered_json::array();
    for (const OutputRow& row : t.outputs) {
        outputs.push_back({{"output", row.output}, {"batch", row.batch}, {"kv_head", row.kv_head}, {"first_row", row.first_row}, {"rows", row.rows}, {"tiles", row.tiles},
                           {"host_cta", row.host_cta}, {"ctas", row.ctas}});
    }
    j["outputs"] = std::move(outputs);
    return j;
}

}  // namespace leanattn::app

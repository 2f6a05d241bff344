#include "schedule_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "problem_json.hpp"

namespace leanattn::app {

namespace {

using nlohmann::ordered_json;

// Every key but the two long arrays.
ordered_json head_of(const Schedule& s) {
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
    j["problem"] = problem_to_json(s.problem);
    return j;
}

ordered_json cta_json(const Problem& p, const CtaRow& row) {
    ordered_json segments = ordered_json::array();
    for (const Segment& seg : row.segments) {
        segments.push_back({{"output", seg.output}, {"batch", p.request_of(seg.output)}, {"kv_head", p.kv_head_of(seg.output)},
                            {"begin", seg.begin}, {"end", seg.end}, {"host", seg.host}, {"finishing", seg.finishing}});
    }
    return {{"cta", row.cta}, {"sm", row.sm}, {"tiles", row.tiles}, {"segments", std::move(segments)}};
}

ordered_json output_json(const OutputRow& row) {
    return {{"output", row.output}, {"batch", row.batch}, {"kv_head", row.kv_head}, {"first_row", row.first_row}, {"rows", row.rows}, {"tiles", row.tiles},
            {"host_cta", row.host_cta}, {"ctas", row.ctas}};
}

// One element of a top-level array: its dump(2), every line two levels in.
void write_element(std::ostream& out, const ordered_json& element) {
    const std::string text = element.dump(2);
    for (std::size_t line = 0; line < text.size();) {
        const std::size_t end = std::min(text.find('\n', line), text.size() - 1) + 1;  // through its newline
        out << "    ";
        out.write(text.data() + line, static_cast<std::streamsize>(end - line));
        line = end;
    }
}

// `"key": [` … `]` of a top-level array, made element by element.
template <typename Rows, typename ToJson>
void write_array(std::ostream& out, const char* key, const Rows& rows, ToJson&& to_json) {
    out << "  \"" << key << "\": [";
    bool first = true;
    for (const auto& row : rows) {
        out << (first ? "\n" : ",\n");
        write_element(out, to_json(row));
        first = false;
    }
    out << (first ? "]" : "\n  ]");
}

}  // namespace

void write_schedule_json(std::ostream& out, const Schedule& s, const ScheduleTable& t, const ordered_json& auto_choice) {
    ordered_json j = head_of(s);
    if (!auto_choice.is_null()) j["auto"] = auto_choice;
    std::string head = j.dump(2);
    head.resize(head.size() - 2);  // the closing "\n}": the arrays follow
    out << head << ",\n";
    write_array(out, "ctas", t.ctas, [&](const CtaRow& row) { return cta_json(s.problem, row); });
    out << ",\n";
    write_array(out, "outputs", t.outputs, output_json);
    out << "\n}";
}

std::string schedule_json(const Schedule& s, const ScheduleTable& t, const ordered_json& auto_choice) {
    std::ostringstream out;
    write_schedule_json(out, s, t, auto_choice);
    return out.str();
}

}  // namespace leanattn::app

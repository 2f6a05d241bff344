#include "schedule_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "schedule_text.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

constexpr double left = 96, right = 24, top = 64, width = 1100;
constexpr double reduce_per_peer = 0.25;
const std::string reduce_color = "#5b2a86";  // dark purple: apart from every output color  // drawn width of merging one peer's partial, in LeanTiles

struct Placed {  // one CTA on the idealised time axis
    double start = 0, end = 0;     // its LeanTiles
    double partial_ready = 0;      // when its first segment's partial is stored (if it is a peer)
    double wait_end = 0, reduce_end = 0;  // a waiting host: wait until, then reduce until
};

struct Layout {
    std::vector<Placed> ctas;
    double makespan = 0;
    double reduce_launch = 0;  // fixed-split: width of the reduce band
};

// Places every CTA in its slot (slot = cta mod resident; later waves follow the previous occupant).
Layout place(const Schedule& s, const ScheduleTable& t) {
    Layout L;
    L.ctas.resize(t.ctas.size());
    const std::int64_t resident = s.device.resident_ctas();
    for (const CtaRow& row : t.ctas) {
        Placed& p = L.ctas[row.cta];
        p.start = row.cta >= resident ? L.ctas[row.cta - resident].reduce_end : 0.0;
        p.end = p.start + static_cast<double>(row.tiles);
        p.partial_ready = row.segments.empty() ? p.start : p.start + static_cast<double>(row.segments.front().tiles());
        p.wait_end = p.reduce_end = p.end;
    }
    if (s.fused_reduction()) {
        for (const CtaRow& row : t.ctas) {
            if (row.segments.empty()) continue;
            const Segment& last = row.segments.back();
            const OutputRow& o = t.outputs[last.output];
            if (!last.host || o.ctas.size() < 2) continue;
            Placed& p = L.ctas[row.cta];
            for (std::size_t i = 1; i < o.ctas.size(); ++i) p.wait_end = std::max(p.wait_end, L.ctas[o.ctas[i]].partial_ready);
            p.reduce_end = p.wait_end + reduce_per_peer * static_cast<double>(o.ctas.size() - 1);
        }
    }
    for (const Placed& p : L.ctas) L.makespan = std::max(L.makespan, p.reduce_end);
    if (s.launches > 1) L.reduce_launch = std::max(1.0, 0.06 * L.makespan);
    return L;
}

std::string title_of(const Schedule& s) {
    const Problem& p = s.problem;
    std::ostringstream t;
    t << strategy_name(s.strategy) << " on " << s.device.name << " (" << s.device.sms << " SMs x " << s.device.ctas_per_sm << " CTA/SM): grid "
      << s.grid << ", " << s.launches << (s.launches == 1 ? " launch" : " launches") << ", " << s.total_tiles << " LeanTiles — batch " << p.batch
      << ", heads " << p.q_heads << "/" << p.kv_heads << ", d " << p.head_dim << ", tile " << p.tile;
    return t.str();
}

}  // namespace

void write_schedule_svg(std::ostream& out, const Schedule& s, const ScheduleTable& t) {
    const Layout L = place(s, t);
    const std::int64_t lanes = s.device.ctas_per_sm, sms = s.device.sms;
    const double lane_h = std::clamp(640.0 / static_cast<double>(sms * lanes), 1.5, 26.0);
    const double row_gap = lane_h >= 8 ? 4 : 0;
    const double rows_h = static_cast<double>(sms) * (lane_h * static_cast<double>(lanes) + row_gap);
    const double height = top + rows_h + 110;
    const double span = L.makespan + L.reduce_launch;
    const double xs = (width - left - right) / std::max(span, 1e-9);
    auto x_of = [&](double tiles) { return left + tiles * xs; };
    auto y_of = [&](std::int64_t cta) {
        const std::int64_t slot = cta % s.device.resident_ctas();
        const std::int64_t sm = slot % sms, lane = slot / sms;
        return top + static_cast<double>(sm) * (lane_h * static_cast<double>(lanes) + row_gap) + static_cast<double>(lane) * lane_h;
    };

    SvgWriter svg(width, height);
    svg.raw("<defs><pattern id=\"wait\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            "<rect width=\"6\" height=\"6\" fill=\"#e6e6e6\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/></pattern></defs>");
    svg.text(left, 24, title_of(s), 15, "start", "font-weight=\"bold\"");
    svg.text(left, 44, "x: LeanTiles in the order each CTA does them (every LeanTile costing the same); one row per SM" +
                           std::string(lanes > 1 ? ", one lane per resident CTA" : ""), 12, "start", "fill=\"#555\"");

    // SM labels and row guides.
    const std::int64_t label_every = std::max<std::int64_t>(1, static_cast<std::int64_t>(14.0 / (lane_h * static_cast<double>(lanes) + row_gap)));
    for (std::int64_t sm = 0; sm < sms; ++sm) {
        const double y = top + static_cast<double>(sm) * (lane_h * static_cast<double>(lanes) + row_gap);
        if (sm % label_every == 0) svg.text(left - 8, y + std::min(lane_h * static_cast<double>(lanes), 14.0) - 2, "SM" + std::to_string(sm), 11, "end");
    }
    const bool labels = lane_h >= 14;
    for (const CtaRow& row : t.ctas) {
        const Placed& p = L.ctas[row.cta];
        const double y = y_of(row.cta);
        if (row.segments.empty()) {
            svg.rect(x_of(p.start), y + 1, std::max(2.0, 0.3 * xs), lane_h - 2, "none", "CTA " + std::to_string(row.cta) + ": empty chunk, exits at once",
                     "class=\"empty\" stroke=\"#888\" stroke-dasharray=\"2,2\"");
            continue;
        }
        double x = p.start;
        for (const Segment& seg : row.segments) {
            const double w = static_cast<double>(seg.tiles());
            const std::string name = output_label(s.problem, seg.output);
            std::ostringstream tip;
            tip << "CTA " << row.cta << " (SM " << row.sm << "): " << name << " LeanTiles [" << seg.begin << "," << seg.end << ")"
                << (seg.host ? ", host" : "") << (seg.finishing ? ", finishing" : "");
            svg.rect(x_of(x), y + (lane_h > 4 ? 0.5 : 0), w * xs, lane_h - (lane_h > 4 ? 1 : 0), palette_color(seg.output), tip.str(),
                     "class=\"seg\" data-cta=\"" + std::to_string(row.cta) + "\" data-output=\"" + std::to_string(seg.output) + "\" stroke=\"white\" stroke-width=\"" +
                         (lane_h > 4 ? "1" : "0") + "\"");
            if (seg.host && lane_h > 4) {  // host: a dark tick where it starts the output
                svg.rect(x_of(x), y + 0.5, std::min(3.0, w * xs), lane_h - 1, "#222", {}, "class=\"host\"");
            }
            const std::string label = name + "[" + std::to_string(seg.begin) + "," + std::to_string(seg.end) + ")";
            if (labels && w * xs > 7.0 * static_cast<double>(label.size())) {
                svg.text(x_of(x + w / 2), y + lane_h / 2 + 4, label, 11, "middle", "fill=\"white\"");
            }
            x += w;
        }
        if (p.wait_end > p.end + 1e-9) {
            svg.rect(x_of(p.end), y + 0.5, (p.wait_end - p.end) * xs, lane_h - 1, "url(#wait)", "CTA " + std::to_string(row.cta) + " waits for its peers' partials",
                     "class=\"wait\"");
        }
        if (p.reduce_end > p.wait_end + 1e-9) {
            const OutputRow& o = t.outputs[row.segments.back().output];
            svg.rect(x_of(p.wait_end), y + 0.5, (p.reduce_end - p.wait_end) * xs, lane_h - 1, reduce_color,
                     "CTA " + std::to_string(row.cta) + " reduces " + output_label(s.problem, o.output) + " from " + std::to_string(o.ctas.size() - 1) + " peers",
                     "class=\"reduce\"");
            if (labels && (p.reduce_end - p.wait_end) * xs > 14) svg.text(x_of((p.wait_end + p.reduce_end) / 2), y + lane_h / 2 + 4, "R", 11, "middle", "fill=\"white\"");
        }
    }
    if (L.reduce_launch > 0) {
        svg.rect(x_of(L.makespan), top, L.reduce_launch * xs, rows_h, reduce_color, "second launch: each split output merges its partials", "class=\"reduce-launch\" opacity=\"0.85\"");
        svg.text(x_of(L.makespan + L.reduce_launch / 2), top - 6, "reduce", 11, "middle");
    }

    // Axis.
    const double axis_y = top + rows_h + 8;
    svg.line(left, axis_y, x_of(span), axis_y, "#333");
    const double step = std::max(1.0, std::pow(10.0, std::floor(std::log10(std::max(span, 1.0) / 5.0))));
    for (double v = 0; v <= span + 1e-9; v += step * (span / step > 10 ? (span / step > 25 ? 5 : 2) : 1)) {
        svg.line(x_of(v), axis_y, x_of(v), axis_y + 4, "#333");
        svg.text(x_of(v), axis_y + 16, SvgWriter::num(v), 10, "middle");
    }
    svg.text(x_of(span), axis_y + 30, "LeanTiles", 11, "end", "fill=\"#555\"");

    // Legend.
    double lx = left;
    double ly = axis_y + 48;
    const std::int64_t outputs = s.problem.outputs();
    const std::int64_t shown = std::min<std::int64_t>(outputs, 8);
    for (std::int64_t o = 0; o < shown; ++o) {
        svg.rect(lx, ly - 10, 12, 12, palette_color(o), {}, "class=\"legend-output\"");
        svg.text(lx + 16, ly, output_label(s.problem, o), 11);
        lx += 22 + 7.0 * static_cast<double>(output_label(s.problem, o).size());
    }
    if (outputs > shown) {
        svg.text(lx, ly, "… " + std::to_string(outputs) + " outputs (colors repeat)", 11);
        lx += 200;
    }
    const std::pair<std::string, std::string> marks[] = {
        {"#222", "host (first LeanTile: reduces)"}, {"url(#wait)", "host waiting for partials"}, {reduce_color, "reduction"}};
    for (const auto& [fill, text] : marks) {
        if (lx + 30 + 6.2 * static_cast<double>(text.size()) > width) lx = left, ly += 20;  // wrap the legend
        svg.rect(lx, ly - 10, 12, 12, fill, {}, "class=\"legend-mark\"");
        svg.text(lx + 16, ly, text, 11);
        lx += 26 + 6.2 * static_cast<double>(text.size());
    }
    svg.write(out);
}

void write_schedule_html(std::ostream& out, const Schedule& s, const ScheduleTable& t) {
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>leanattn schedule: " << xml_escape(title_of(s)) << "</title>\n"
        << "<style>body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:13px}"
           "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}pre{background:#f8f8f8;padding:8px}</style>\n"
        << "</head><body>\n<h1>leanattn schedule</h1>\n<p>" << xml_escape(title_of(s)) << "</p>\n";
    std::ostringstream text;
    write_schedule_text(text, s, t);
    out << "<pre>" << xml_escape(text.str()) << "</pre>\n";
    write_schedule_svg(out, s, t);
    out << "<h2>Outputs</h2>\n<p>Each output tile is one (request, KV head) pair; its host CTA holds its first LeanTile and merges the "
           "other contributors' partial results with the softmax re-scaling operator"
        << (s.fused_reduction() ? " in the same launch." : (s.launches > 1 ? "; here a second launch merges them." : ".")) << "</p>\n"
        << "<table><tr><th>output</th><th>request</th><th>kv-head</th><th>LeanTiles</th><th>host CTA</th><th>contributors</th></tr>\n";
    const std::size_t cap = 64;
    for (std::size_t i = 0; i < t.outputs.size() && i < cap; ++i) {
        const OutputRow& o = t.outputs[i];
        std::string ctas;
        for (std::size_t j = 0; j < o.ctas.size() && j < 12; ++j) ctas += (j ? ", " : "") + std::to_string(o.ctas[j]);
        if (o.ctas.size() > 12) ctas += ", … (" + std::to_string(o.ctas.size()) + ")";
        out << "<tr><td>" << xml_escape(output_label(s.problem, o.output)) << "</td><td>" << o.batch << "</td><td>" << o.kv_head << "</td><td>" << o.tiles
            << "</td><td>" << o.host_cta << "</td><td>" << ctas << "</td></tr>\n";
    }
    out << "</table>\n";
    if (t.outputs.size() > cap) out << "<p>… and " << t.outputs.size() - cap << " more outputs (see --format json).</p>\n";
    out << "<p>Made by <code>leanattn schedule --format html</code>.</p>\n</body></html>\n";
}

}  // namespace leanattn::app

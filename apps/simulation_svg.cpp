#include "simulation_svg.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "plot_axis.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

constexpr double width = 1200.0;
constexpr double left = 78.0;     // room for SM labels
constexpr double right = 24.0;
constexpr double panel_gap = 44.0;
constexpr double header = 22.0;   // a panel's title line

const char* busy_color = "#4e79a7";
const char* reduce_color = "#f28e2b";
const char* hatch_defs =
    "<defs><pattern id=\"waiting\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#d9d9d9\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8c8c8c\" stroke-width=\"2\"/>"
    "</pattern></defs>";

// Row height per SM: readable labels for a toy GPU, 2–3 px for an H100, sub-pixel (blended) for 864 SMs.
double row_height(std::int64_t sms) { return std::clamp(400.0 / static_cast<double>(sms), 0.5, 16.0); }

std::string fill_of(sim::SmState s) {
    switch (s) {
        case sim::SmState::busy: return busy_color;
        case sim::SmState::reduce: return reduce_color;
        case sim::SmState::waiting: return "url(#waiting)";
        case sim::SmState::idle: break;
    }
    return "none";
}

const char* state_name(sim::SmState s) {
    switch (s) {
        case sim::SmState::busy: return "busy";
        case sim::SmState::reduce: return "reduction";
        case sim::SmState::waiting: return "waiting for peers";
        case sim::SmState::idle: break;
    }
    return "idle";
}

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string panel_title(const SimulationReport& report, const sim::SimResult& r) {
    std::string title = std::string(strategy_name(r.strategy)) + ": makespan " + fmt("%.1f", r.makespan_ns / 1e3) + " us, occupancy " +
                        fmt("%.1f", 100.0 * r.occupancy()) + "%, grid " + std::to_string(r.grid) + ", " + std::to_string(r.launches) +
                        (r.launches == 1 ? " launch" : " launches");
    if (r.strategy == Strategy::fixed_split) title += ", " + std::to_string(r.splits) + (r.splits == 1 ? " split" : " splits");
    const double speedup = report.speedup_vs_fixed_split(r);
    if (speedup > 0.0 && r.strategy != Strategy::fixed_split) title += ", " + fmt("%.2f", speedup) + "x vs fixed-split";
    return title;
}

void draw_panel(SvgWriter& svg, const SimulationReport& report, const sim::SimResult& r, double top, double x_scale) {
    const double row = row_height(r.sms);
    const double height = row * static_cast<double>(r.sms);
    svg.text(left, top + 15, panel_title(report, r), 13, "start", "font-weight=\"bold\"");
    const double y0 = top + header;
    const bool tooltips = r.sms <= 32;
    for (std::size_t sm = 0; sm < r.timeline.size(); ++sm) {
        const double y = y0 + row * static_cast<double>(sm);
        for (const sim::SmInterval& iv : r.timeline[sm]) {
            if (iv.state == sim::SmState::idle) continue;
            const std::string tip = tooltips ? "SM " + std::to_string(sm) + ": " + state_name(iv.state) + " " + fmt("%.2f", iv.begin_ns / 1e3) +
                                                   "-" + fmt("%.2f", iv.end_ns / 1e3) + " us"
                                             : std::string();
            svg.rect(left + iv.begin_ns * x_scale, y, (iv.end_ns - iv.begin_ns) * x_scale, row, fill_of(iv.state), tip,
                     "shape-rendering=\"crispEdges\"");
        }
    }
    // SM labels: every row for a toy GPU, else about 8 of them.
    const std::int64_t every = r.sms <= 24 ? 1 : std::max<std::int64_t>(1, (r.sms + 7) / 8);
    for (std::int64_t sm = 0; sm < r.sms; sm += every) {
        svg.text(left - 6, y0 + row * (static_cast<double>(sm) + 0.5) + 4, "SM " + std::to_string(sm), 10, "end");
    }
    svg.rect(left, y0, r.makespan_ns * x_scale, height, "none", {}, "stroke=\"#999\" stroke-width=\"0.8\"");
    svg.line(left + r.makespan_ns * x_scale, y0 - 4, left + r.makespan_ns * x_scale, y0 + height + 4, "#d62728", 1.5);
}

void draw_legend(SvgWriter& svg, double y) {
    double x = left;
    for (auto [fill, label] : {std::pair<std::string, std::string>{busy_color, "busy (stream K/V, compute, store)"},
                               {reduce_color, "reduction (partials, merges, reduce kernel)"},
                               {"url(#waiting)", "host waiting for peers' flags"},
                               {"white", "idle (no CTA)"}}) {
        svg.rect(x, y - 10, 14, 12, fill, {}, "stroke=\"#999\" stroke-width=\"0.6\"");
        svg.text(x + 19, y, label, 11);
        x += 24 + 6.2 * static_cast<double>(label.size());
    }
}

}  // namespace

void write_simulation_svg(std::ostream& out, const SimulationReport& report) {
    double longest = 0.0, panels = 0.0;
    for (const sim::SimResult& r : report.results) {
        longest = std::max(longest, r.makespan_ns);
        panels += header + row_height(r.sms) * static_cast<double>(r.sms) + panel_gap;
    }
    const double top = 62.0;
    const double axis = 40.0;
    const double height = top + panels + axis;
    const double x_scale = (width - left - right) / longest;
    SvgWriter svg(width, height);
    svg.raw(hatch_defs);
    svg.text(left, 22, "Simulated per-SM timelines: " + describe_setup(report.problem, report.device, report.dtype), 14, "start",
             "font-weight=\"bold\"");
    draw_legend(svg, 44);
    // Vertical grid lines across every panel, labelled once at the bottom.
    const double bottom = top + panels - panel_gap + 6;
    for (double tick : nice_ticks(0.0, longest / 1e3)) {
        const double x = left + tick * 1e3 * x_scale;
        svg.line(x, top, x, bottom, "#e6e6e6", 1.0);
        svg.line(x, bottom, x, bottom + 5, "#333", 1.0);
        svg.text(x, bottom + 18, SvgWriter::num(tick), 11, "middle");
    }
    svg.text(left + (width - left - right) / 2, bottom + 34, "time (us) from the first launch; red line = makespan", 12, "middle");
    double y = top;
    for (const sim::SimResult& r : report.results) {
        draw_panel(svg, report, r, y, x_scale);
        y += header + row_height(r.sms) * static_cast<double>(r.sms) + panel_gap;
    }
    svg.write(out);
}

void write_simulation_html(std::ostream& out, const SimulationReport& report) {
    std::ostringstream table, picture;
    write_simulation_text(table, report);
    write_simulation_svg(picture, report);
    out << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>leanattn simulate: "
        << xml_escape(describe_setup(report.problem, report.device, report.dtype)) << "</title>\n"
        << "<style>body{font-family:Helvetica,Arial,sans-serif;margin:24px;} pre{background:#f6f6f6;padding:12px;}</style></head>\n"
        << "<body>\n<h2>leanattn simulate</h2>\n<pre>" << xml_escape(table.str()) << "</pre>\n"
        << picture.str() << "</body></html>\n";
}

}  // namespace leanattn::app

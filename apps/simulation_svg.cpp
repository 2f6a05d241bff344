#include "simulation_svg.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "auto_choice_html.hpp"
#include "plot_axis.hpp"
#include "request_legend.hpp"
#include "schedule_svg.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

constexpr double width = 1200.0;
constexpr double left = 78.0;     // room for SM labels
constexpr double right = 24.0;
constexpr double panel_gap = 44.0;
constexpr double header = 20.0;   // a panel's title line
constexpr double rug = 9.0;       // the strip above a panel's rows holding ticks for reductions too short to see
constexpr double min_visible_px = 1.0;

// Row height per SM: readable labels for a toy GPU, 2–3 px for an H100, sub-pixel (blended) for 864 SMs.
double row_height(std::int64_t sms) { return std::clamp(400.0 / static_cast<double>(sms), 0.5, 16.0); }
double panel_height(const sim::SimResult& r) { return header + rug + row_height(r.sms) * static_cast<double>(r.sms) + panel_gap; }

// States in svg.hpp's shared marks: greys and purple, never a request's hue (those are `schedule`'s).
std::string fill_of(sim::SmState s) {
    switch (s) {
        case sim::SmState::busy: return busy_color;
        case sim::SmState::reduce: return reduce_color;
        case sim::SmState::waiting: return waiting_fill;
        case sim::SmState::idle: break;
    }
    return idle_color;
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

const char* state_class(sim::SmState s) {
    switch (s) {
        case sim::SmState::busy: return "busy";
        case sim::SmState::reduce: return "reduce";
        case sim::SmState::waiting: return "waiting";
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
    // auto's plan is the report's first: say what chose it (its occupancy is the kernel model's CTAs per SM).
    const std::string chooser = &r == &report.results.front() ? auto_chooser(report.auto_choice) : std::string();
    const TimeUnit unit = time_unit_for(r.makespan_ns);
    std::string title = (chooser.empty() ? "" : chooser + " chose ") + std::string(strategy_name(r.strategy)) + ": makespan " +
                        fmt("%.1f", r.makespan_ns / unit.ns_per_unit) + " " + unit.name + ", occupancy " +
                        fmt("%.1f", 100.0 * r.occupancy()) + "%, grid " + std::to_string(r.grid) + ", " + std::to_string(r.launches) +
                        (r.launches == 1 ? " launch" : " launches");
    if (r.strategy == Strategy::fixed_split) title += ", " + std::to_string(r.splits) + (r.splits == 1 ? " split" : " splits");
    const double speedup = report.speedup_vs_fixed_split(r);
    if (speedup > 0.0 && r.strategy != Strategy::fixed_split) title += ", " + fmt("%.2f", speedup) + "x vs fixed-split";
    return title;
}

// Every interval at its true duration. A sub-pixel one is left antialiased (crisp edges would round it to a
// whole pixel or to nothing); a reduction that thin is also ticked in the rug above the panel.
void draw_intervals(SvgWriter& svg, const sim::SimResult& r, double y0, double x_scale) {
    const double row = row_height(r.sms);
    const bool tooltips = r.sms <= 32;
    for (std::size_t sm = 0; sm < r.timeline.size(); ++sm) {
        const double y = y0 + row * static_cast<double>(sm);
        for (const sim::SmInterval& iv : r.timeline[sm]) {
            if (iv.state == sim::SmState::idle) continue;  // the panel's background
            const double w = (iv.end_ns - iv.begin_ns) * x_scale;
            const std::string tip = tooltips ? "SM " + std::to_string(sm) + ": " + state_name(iv.state) + " " + fmt("%.2f", iv.begin_ns / 1e3) +
                                                   "-" + fmt("%.2f", iv.end_ns / 1e3) + " us"
                                             : std::string();
            svg.rect(left + iv.begin_ns * x_scale, y, w, row, fill_of(iv.state), tip,
                     "class=\"" + std::string(state_class(iv.state)) + "\"" + (w >= min_visible_px ? " shape-rendering=\"crispEdges\"" : ""));
        }
    }
}

// Over the states: each stream phase (a CTA reading, and computing, one output's K and V) in its request's hue,
// shaded by KV head, as `schedule` colours the same output, so a ragged plan shows who owns which SMs when. Each
// names its request and head on hover, unless the plan has so many that the tooltips would swell the file.
void draw_streams(SvgWriter& svg, const Problem& problem, const sim::SimResult& r, double y0, double x_scale) {
    constexpr std::size_t most_tooltips = 4096;
    const double row = row_height(r.sms);
    const bool tooltips = r.streams.size() <= most_tooltips;
    for (const sim::StreamSpan& s : r.streams) {
        const double w = (s.end_ns - s.begin_ns) * x_scale;
        const std::string tip = tooltips ? "b" + std::to_string(problem.request_of(s.output)) + " h" + std::to_string(problem.kv_head_of(s.output)) +
                                               " (output " + std::to_string(s.output) + ") on SM " + std::to_string(s.sm) + ": " +
                                               fmt("%.2f", s.begin_ns / 1e3) + "-" + fmt("%.2f", s.end_ns / 1e3) + " us"
                                         : std::string();
        svg.rect(left + s.begin_ns * x_scale, y0 + row * static_cast<double>(s.sm), w, row, output_color(problem, s.output), tip,
                 std::string("class=\"stream\"") + (w >= min_visible_px ? " shape-rendering=\"crispEdges\"" : ""));
    }
}

// Centres, in whole pixels, of the reductions narrower than a pixel: one tick each in the rug above the rows,
// drawn outside the time axis so that no row gets a bar wider than the time it stands for.
std::vector<long> short_reductions(const sim::SimResult& r, double x_scale) {
    std::vector<long> columns;
    for (const auto& intervals : r.timeline) {
        for (const sim::SmInterval& iv : intervals) {
            if (iv.state == sim::SmState::reduce && (iv.end_ns - iv.begin_ns) * x_scale < min_visible_px) {
                columns.push_back(std::lround(left + 0.5 * (iv.begin_ns + iv.end_ns) * x_scale));
            }
        }
    }
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    return columns;
}

void draw_rug(SvgWriter& svg, const sim::SimResult& r, double y, double x_scale) {
    for (long x : short_reductions(r, x_scale)) {
        svg.line(static_cast<double>(x), y + 1, static_cast<double>(x), y + rug - 2, reduce_color, 1.0, "class=\"short-reduce\"");
    }
}

void draw_panel(SvgWriter& svg, const SimulationReport& report, const sim::SimResult& r, double top, double x_scale) {
    const double row = row_height(r.sms);
    const double height = row * static_cast<double>(r.sms);
    svg.text(left, top + 14, panel_title(report, r), 13, "start", "font-weight=\"bold\"");
    const double y0 = top + header + rug;
    draw_rug(svg, r, top + header, x_scale);
    svg.rect(left, y0, r.makespan_ns * x_scale, height, idle_color, {}, "class=\"idle\"");
    draw_intervals(svg, r, y0, x_scale);
    draw_streams(svg, report.problem, r, y0, x_scale);
    // SM labels: every row for a toy GPU, else about 8 of them.
    const std::int64_t every = r.sms <= 24 ? 1 : std::max<std::int64_t>(1, (r.sms + 7) / 8);
    for (std::int64_t sm = 0; sm < r.sms; sm += every) {
        svg.text(left - 6, y0 + row * (static_cast<double>(sm) + 0.5) + 4, "SM " + std::to_string(sm), 10, "end");
    }
    svg.rect(left, y0, r.makespan_ns * x_scale, height, "none", {}, "stroke=\"#999\" stroke-width=\"0.8\"");
    svg.line(left + r.makespan_ns * x_scale, y0 - rug, left + r.makespan_ns * x_scale, y0 + height + 4, "#d62728", 1.5);
}

struct LegendEntry {
    std::string fill, label;  // fill "tick": a rug tick
};

// Whether any panel shows an SM in `state`.
bool shows(const SimulationReport& report, sim::SmState state) {
    for (const sim::SimResult& r : report.results) {
        for (const auto& intervals : r.timeline) {
            for (const sim::SmInterval& iv : intervals) {
                if (iv.state == state && iv.end_ns > iv.begin_ns) return true;
            }
        }
    }
    return false;
}

// The state colors the panels show, and the rug's tick where some panel has one.
std::vector<LegendEntry> legend_entries(const SimulationReport& report, bool ticks) {
    std::vector<LegendEntry> entries = {{request_color(0, 0, 2), "streaming an output's K/V: its request's hue, shaded by KV head (as in schedule)"},
                                        {busy_color, "busy otherwise (set-up, writing outputs)"}};
    if (shows(report, sim::SmState::reduce)) entries.push_back({reduce_color, "reduction (partial stores, merges, reduce kernel), to scale"});
    if (shows(report, sim::SmState::waiting)) entries.push_back({waiting_fill, "host waiting for peers' flags"});
    entries.push_back({idle_color, "idle: no CTA (the launch's start, or none left)"});
    if (ticks) entries.push_back({"tick", "tick above a panel: a reduction under 1 px wide (to scale in its row, too thin to see)"});
    return entries;
}

double entry_width(const LegendEntry& e) { return 24 + 6.2 * static_cast<double>(e.label.size()); }

// Each entry's (x, row), flowed left to right and wrapped at the picture's width.
std::vector<std::pair<double, int>> legend_layout(const std::vector<LegendEntry>& entries) {
    std::vector<std::pair<double, int>> at;
    double x = left;
    int row = 0;
    for (const LegendEntry& e : entries) {
        if (x > left && x + entry_width(e) > width - right) x = left, ++row;
        at.emplace_back(x, row);
        x += entry_width(e);
    }
    return at;
}

constexpr double legend_row = 18.0;

double legend_height(const std::vector<LegendEntry>& entries) {
    return legend_row * (legend_layout(entries).back().second + 2);  // the entries' rows and the note under them
}

void draw_legend(SvgWriter& svg, const std::vector<LegendEntry>& entries, double y0) {
    const auto at = legend_layout(entries);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const LegendEntry& e = entries[i];
        const double x = at[i].first, y = y0 + legend_row * at[i].second;
        if (e.fill == "tick") svg.line(x + 7, y - 10, x + 7, y + 2, reduce_color, 1.0);
        else svg.rect(x, y - 10, 14, 12, e.fill, {}, "class=\"legend-state\" stroke=\"#999\" stroke-width=\"0.6\"");
        svg.text(x + 19, y, e.label, 11);
    }
    svg.text(left, y0 + legend_row * (at.back().second + 1),
             "Hues are requests, shaded by KV head, as \"leanattn schedule\" colors them; SM states are greys and purple, never a request's hue.", 11, "start",
             "fill=\"#555\"");
}

}  // namespace

void write_simulation_svg(std::ostream& out, const SimulationReport& report) {
    double longest = 0.0, panels = 0.0;
    for (const sim::SimResult& r : report.results) {
        longest = std::max(longest, r.makespan_ns);
        panels += panel_height(r);
    }
    const double x_scale = (width - left - right) / longest;
    bool ticks = false;
    for (const sim::SimResult& r : report.results) ticks = ticks || !short_reductions(r, x_scale).empty();
    const std::vector<LegendEntry> legend = legend_entries(report, ticks);
    // The requests' hues first, named as `schedule` names them, then the SM states.
    const double requests_top = 64.0;
    const int request_rows = request_legend_rows(report.problem, left, width - right);
    const double legend_top = requests_top + legend_row * request_rows, top = legend_top + legend_height(legend) + 4;
    const double axis = 40.0;
    SvgWriter svg(width, top + panels + axis);
    svg.raw("<defs>" + std::string(waiting_pattern) + "</defs>");
    svg.text(left, 22, "Simulated per-SM timelines", 15, "start", "font-weight=\"bold\"");
    svg.text(left, 40, describe_setup(report.problem, report.device, report.dtype) + ", kernel model " + report.kernel, 12, "start", "fill=\"#333\"");
    draw_request_legend(svg, report.problem, left, width - right, requests_top, legend_row);
    draw_legend(svg, legend, legend_top);
    // Vertical grid lines across every panel, labelled once at the bottom.
    const double bottom = top + panels - panel_gap + 6;
    const TimeUnit unit = time_unit_for(longest);
    for (double tick : nice_ticks(0.0, longest / unit.ns_per_unit)) {
        const double x = left + tick * unit.ns_per_unit * x_scale;
        svg.line(x, top, x, bottom, "#e6e6e6", 1.0);
        svg.line(x, bottom, x, bottom + 5, "#333", 1.0);
        svg.text(x, bottom + 18, SvgWriter::num(tick), 11, "middle");
    }
    svg.text(left + (width - left - right) / 2, bottom + 34, std::string("time (") + unit.name + ") from the first launch; red line = makespan", 12, "middle");
    double y = top;
    for (const sim::SimResult& r : report.results) {
        draw_panel(svg, report, r, y, x_scale);
        y += panel_height(r);
    }
    svg.write(out);
}

void write_simulation_html(std::ostream& out, const SimulationReport& report) {
    std::ostringstream table, picture;
    write_simulation_text(table, report);
    write_simulation_svg(picture, report);
    out << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>leanattn simulate: "
        << xml_escape(describe_setup(report.problem, report.device, report.dtype) + ", kernel model " + report.kernel) << "</title>\n"
        << "<style>body{font-family:Helvetica,Arial,sans-serif;margin:24px;} pre{background:#f6f6f6;padding:12px;}"
           "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 10px;text-align:right}"
           "th{background:#f2f2f2}td.l,th.l{text-align:left}</style></head>\n"
        << "<body>\n<h2>leanattn simulate</h2>\n<pre>" << xml_escape(table.str()) << "</pre>\n"
        << picture.str();
    if (!report.results.empty()) out << auto_choice_html(report.auto_choice, std::string(strategy_name(report.results.front().strategy)), report.results.front().grid);
    out << "</body></html>\n";
}

}  // namespace leanattn::app

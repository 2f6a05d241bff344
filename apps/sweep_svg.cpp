#include "sweep_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "plot_axis.hpp"
#include "simulation_report.hpp"
#include "sweep_report.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

constexpr double width = 900.0, height = 520.0;
constexpr double left = 70.0, right = 190.0, top = 60.0, bottom = 70.0;

// 65536 → "64k", 1048576 → "1M": context lengths read better with binary suffixes.
std::string short_value(std::int64_t v, const std::string& vary) {
    if (vary == "ctx" && v >= 1024 && v % (1024 * 1024) == 0) return std::to_string(v / (1024 * 1024)) + "M";
    if (vary == "ctx" && v >= 1024 && v % 1024 == 0) return std::to_string(v / 1024) + "k";
    return std::to_string(v);
}

class Axes {
public:
    Axes(const std::vector<sim::SweepRow>& rows, double y_lo, double y_hi) : y_lo_(y_lo), y_hi_(y_hi) {
        lo_ = hi_ = rows.empty() ? 1.0 : static_cast<double>(rows.front().value);
        for (const sim::SweepRow& r : rows) lo_ = std::min(lo_, static_cast<double>(r.value)), hi_ = std::max(hi_, static_cast<double>(r.value));
        log_ = hi_ >= 8.0 * lo_;
        if (hi_ == lo_) lo_ -= 1.0, hi_ += 1.0;
    }
    bool log() const { return log_; }
    double x(double v) const {
        const double f = log_ ? (std::log2(v) - std::log2(lo_)) / (std::log2(hi_) - std::log2(lo_)) : (v - lo_) / (hi_ - lo_);
        return left + f * (width - left - right);
    }
    double y(double v) const { return height - bottom - (v - y_lo_) / (y_hi_ - y_lo_) * (height - top - bottom); }

private:
    double lo_, hi_, y_lo_, y_hi_;
    bool log_ = false;
};

// How each curve is drawn. Two curves can coincide (fixed-split planned with one split is no-split), so they
// differ in color, dash and marker at once, and the later one is drawn thinner and on top with hollow
// markers: where they meet, the first still shows through the second's gaps and inside its markers. The
// colors are not request colors (svg.hpp): there are no requests here.
// With --strategy auto a third curve, auto's plan over stream-k's, thinner still with hollow diamonds; each of its
// markers names the plan in its tooltip.
enum class Marker { disc, square, diamond };
struct Series {
    std::string name;                // the curve's data-baseline: the strategy divided by stream-k, or "auto"
    std::string label, color, dash;  // dash: the stroke-dasharray, "none" for solid
    double width;
    Marker marker;
    double (*value)(const sim::SweepRow&);  // its y at a row; 0: none there
};

const std::vector<Series>& all_series() {
    static const std::vector<Series> series = {
        {"fixed-split", "LA / FD (fixed-split)", "#1f1f1f", "none", 3.0, Marker::disc, [](const sim::SweepRow& r) { return r.speedup_over(Strategy::fixed_split); }},
        {"no-split", "LA / FA2 (no-split)", "#d55e00", "7,4", 1.6, Marker::square, [](const sim::SweepRow& r) { return r.speedup_over(Strategy::no_split); }},
        {"auto", "LA / auto's plan", "#0072b2", "2,3", 1.2, Marker::diamond, [](const sim::SweepRow& r) { return r.speedup_over_chosen(); }}};
    return series;
}

// The series with a point somewhere in the sweep (auto's only where it was asked for).
std::vector<Series> drawn_series(const std::vector<sim::SweepRow>& rows) {
    std::vector<Series> drawn;
    for (const Series& s : all_series()) {
        if (s.name != "auto" || std::any_of(rows.begin(), rows.end(), [&](const sim::SweepRow& r) { return s.value(r) > 0.0; })) drawn.push_back(s);
    }
    return drawn;
}

// A disc, a hollow square or a hollow diamond (the disc of a coinciding curve shows inside either); `tip` becomes its
// tooltip.
std::string marker(const Series& s, double x, double y, const std::string& tip) {
    std::string shape, tag;
    if (s.marker == Marker::disc) {
        tag = "circle";
        shape = "<circle class=\"marker\" cx=\"" + SvgWriter::num(x) + "\" cy=\"" + SvgWriter::num(y) + "\" r=\"3.5\" fill=\"" + s.color + "\"";
    } else if (s.marker == Marker::square) {
        tag = "rect";
        shape = "<rect class=\"marker\" x=\"" + SvgWriter::num(x - 5.5) + "\" y=\"" + SvgWriter::num(y - 5.5) + "\" width=\"11\" height=\"11\" fill=\"none\" stroke=\"" +
                s.color + "\" stroke-width=\"1.6\"";
    } else {
        tag = "path";
        shape = "<path class=\"marker\" d=\"M" + SvgWriter::num(x) + " " + SvgWriter::num(y - 8) + "l8 8l-8 8l-8 -8z\" fill=\"none\" stroke=\"" + s.color +
                "\" stroke-width=\"1.2\"";
    }
    return shape + (tip.empty() ? "/>" : "><title>" + xml_escape(tip) + "</title></" + tag + ">");
}

std::string path_style(const Series& s) {
    return "fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"" + SvgWriter::num(s.width) + "\" stroke-dasharray=\"" + s.dash + "\"";
}

void draw_curve(SvgWriter& svg, const Axes& axes, const std::vector<sim::SweepRow>& rows, const Series& s) {
    std::ostringstream points;
    std::string markers;
    for (const sim::SweepRow& row : rows) {
        const double v = s.value(row);
        if (v <= 0.0) continue;
        const double x = axes.x(static_cast<double>(row.value)), y = axes.y(v);
        points << SvgWriter::num(x) << "," << SvgWriter::num(y) << " ";
        char tip[96];
        std::snprintf(tip, sizeof tip, "%s at %lld: %.2fx", s.label.c_str(), static_cast<long long>(row.value), v);
        markers += marker(s, x, y, std::string(tip) + (s.name == "auto" && row.chosen ? " (" + chosen_plan(*row.chosen) + ")" : "")) + "\n";
    }
    if (markers.empty()) return;
    svg.raw("<polyline class=\"curve\" data-baseline=\"" + s.name + "\" " + path_style(s) + " points=\"" + points.str() + "\"/>");
    svg.raw(markers);
}

// For each pair of drawn curves, the values where both have a point and agree within 0.5%: said in the legend, so
// that a reader looks for both (the first still shows through the second's gaps and inside its markers).
struct Coinciding {
    std::string first, second;  // the curves' labels
    std::size_t values = 0;
};
std::vector<Coinciding> coinciding(const std::vector<sim::SweepRow>& rows, const std::vector<Series>& drawn) {
    std::vector<Coinciding> pairs;
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        for (std::size_t j = i + 1; j < drawn.size(); ++j) {
            std::size_t n = 0;
            for (const sim::SweepRow& row : rows) {
                const double a = drawn[i].value(row), b = drawn[j].value(row);
                n += a > 0.0 && b > 0.0 && std::abs(a - b) <= 0.005 * std::max(a, b) ? 1 : 0;
            }
            if (n > 0) pairs.push_back({drawn[i].label, drawn[j].label, n});
        }
    }
    return pairs;
}

void draw_legend(SvgWriter& svg, const std::vector<sim::SweepRow>& rows) {
    const double x = width - right + 14;
    double y = top + 12;
    const std::vector<Series> drawn = drawn_series(rows);
    for (const Series& s : drawn) {
        svg.raw("<path class=\"legend-curve\" d=\"M" + SvgWriter::num(x) + " " + SvgWriter::num(y) + "h30\" " + path_style(s) + "/>");
        svg.raw(marker(s, x + 15, y, {}));
        svg.text(x + 36, y + 4, s.label, 12);
        y += 22;
    }
    svg.text(x, y + 6, "above 1x: stream-k faster", 11, "start", "fill=\"#555\"");
    if (drawn.size() > 2) {  // auto's curve: where it dips, auto chose another plan (its tooltips name it)
        svg.text(x, y + 20, "below 1x on auto's: the plan", 11, "start", "fill=\"#555\" class=\"legend-auto\"");
        svg.text(x, y + 34, "it chose there is faster", 11, "start", "fill=\"#555\"");
        y += 28;
    }
    const std::vector<Coinciding> pairs = coinciding(rows, drawn);
    if (!pairs.empty()) {
        svg.text(x, y + 24, "curves that coincide (one over", 11, "start", "fill=\"#555\" class=\"legend-coincide\"");
        svg.text(x, y + 38, "the other, both visible):", 11, "start", "fill=\"#555\"");
        y += 38;
    }
    for (const Coinciding& c : pairs) {  // three lines a pair: the legend's column is narrow
        svg.text(x, y + 16, c.first + " and", 11, "start", "fill=\"#555\" class=\"legend-coincide-pair\"");
        svg.text(x, y + 30, c.second + ":", 11, "start", "fill=\"#555\"");
        svg.text(x, y + 44, std::to_string(c.values) + " of " + std::to_string(rows.size()) + " values", 11, "start", "fill=\"#555\"");
        y += 46;
    }
}

}  // namespace

void write_sweep_svg(std::ostream& out, const SweepReport& report) {
    double y_lo = 1.0, y_hi = 1.0;
    for (const sim::SweepRow& row : report.rows) {
        for (const Series& s : all_series()) {
            const double v = s.value(row);
            if (v > 0.0) y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
        }
    }
    y_lo = std::max(0.0, std::floor((y_lo - 0.05) * 10.0) / 10.0);
    y_hi = std::ceil((y_hi + 0.05) * 10.0) / 10.0;
    const Axes axes(report.rows, y_lo, y_hi);
    SvgWriter svg(width, height);
    svg.text(left, 24, "Simulated speedup of stream-k (LeanAttention) vs the baselines, varying " + sweep_axis_label(report.vary), 15, "start",
             "font-weight=\"bold\"");
    svg.text(left, 44, describe_setup(report.base, report.device, report.dtype, report.vary) + ", kernel model " + report.kernel, 11, "start", "fill=\"#555\"");
    for (double tick : nice_ticks(y_lo, y_hi, 6)) {
        svg.line(left, axes.y(tick), width - right, axes.y(tick), "#e6e6e6", 1.0);
        svg.text(left - 8, axes.y(tick) + 4, SvgWriter::num(tick) + "x", 11, "end");
    }
    svg.line(left, axes.y(1.0), width - right, axes.y(1.0), "#333", 1.2, "stroke-dasharray=\"5,4\"");
    // Label every value when there are few; else about ten of them.
    const std::size_t every = std::max<std::size_t>(1, (report.rows.size() + 9) / 10);
    for (std::size_t i = 0; i < report.rows.size(); i += every) {
        const double x = axes.x(static_cast<double>(report.rows[i].value));
        svg.line(x, height - bottom, x, height - bottom + 5, "#333", 1.0);
        svg.text(x, height - bottom + 19, short_value(report.rows[i].value, report.vary), 11, "middle");
    }
    svg.rect(left, top, width - left - right, height - top - bottom, "none", {}, "stroke=\"#666\" stroke-width=\"1\"");
    svg.text(left + (width - left - right) / 2, height - 22, sweep_axis_label(report.vary) + (axes.log() ? " (log scale)" : ""), 13, "middle");
    svg.text(18, top + (height - top - bottom) / 2, "speedup of stream-k (x)", 13, "middle",
             "transform=\"rotate(-90 18 " + SvgWriter::num(top + (height - top - bottom) / 2) + ")\"");
    for (const Series& s : drawn_series(report.rows)) draw_curve(svg, axes, report.rows, s);  // in order: later ones thinner, on top
    draw_legend(svg, report.rows);
    svg.write(out);
}

}  // namespace leanattn::app

#include "sweep_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "plot_axis.hpp"
#include "simulation_report.hpp"
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

void draw_curve(SvgWriter& svg, const Axes& axes, const std::vector<sim::SweepRow>& rows, Strategy baseline, const std::string& color,
                const std::string& label, double legend_y) {
    std::ostringstream points;
    bool any = false;
    for (const sim::SweepRow& row : rows) {
        const double s = row.speedup_over(baseline);
        if (s <= 0.0) continue;
        any = true;
        points << SvgWriter::num(axes.x(static_cast<double>(row.value))) << "," << SvgWriter::num(axes.y(s)) << " ";
    }
    if (!any) return;
    svg.raw("<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2.2\" points=\"" + points.str() + "\"/>");
    for (const sim::SweepRow& row : rows) {
        const double s = row.speedup_over(baseline);
        if (s <= 0.0) continue;
        char tip[96];
        std::snprintf(tip, sizeof tip, "%s at %lld: %.2fx", label.c_str(), static_cast<long long>(row.value), s);
        svg.raw("<circle cx=\"" + SvgWriter::num(axes.x(static_cast<double>(row.value))) + "\" cy=\"" + SvgWriter::num(axes.y(s)) + "\" r=\"4\" fill=\"" +
                color + "\"><title>" + xml_escape(tip) + "</title></circle>");
    }
    svg.line(width - right + 16, legend_y, width - right + 40, legend_y, color, 2.2);
    svg.text(width - right + 46, legend_y + 4, label, 12);
}

}  // namespace

void write_sweep_svg(std::ostream& out, const SweepReport& report) {
    double y_lo = 1.0, y_hi = 1.0;
    for (const sim::SweepRow& row : report.rows) {
        for (Strategy s : {Strategy::fixed_split, Strategy::no_split}) {
            const double v = row.speedup_over(s);
            if (v > 0.0) y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
        }
    }
    y_lo = std::max(0.0, std::floor((y_lo - 0.05) * 10.0) / 10.0);
    y_hi = std::ceil((y_hi + 0.05) * 10.0) / 10.0;
    const Axes axes(report.rows, y_lo, y_hi);
    SvgWriter svg(width, height);
    svg.text(left, 24, "Simulated speedup of stream-k (LeanAttention) vs the baselines, varying " + sweep_axis_label(report.vary), 15, "start",
             "font-weight=\"bold\"");
    svg.text(left, 44, describe_setup(report.base, report.device, report.dtype, report.vary), 11, "start", "fill=\"#555\"");
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
    draw_curve(svg, axes, report.rows, Strategy::fixed_split, palette_color(0), "LA / FD (fixed-split)", top + 12);
    draw_curve(svg, axes, report.rows, Strategy::no_split, palette_color(1), "LA / FA2 (no-split)", top + 34);
    svg.text(width - right + 16, top + 62, "above 1x: stream-k faster", 11, "start", "fill=\"#555\"");
    svg.write(out);
}

}  // namespace leanattn::app

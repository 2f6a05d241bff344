#include "request_legend.hpp"

#include <algorithm>
#include <functional>

namespace leanattn::app {

namespace {

constexpr std::int64_t max_listed_requests = 24;  // past this, one entry per hue naming the requests sharing it
constexpr std::int64_t max_swatch_shades = 8;     // a swatch samples at most this many heads
constexpr double text_gap = 6, font = 11.5;

bool ragged(const Problem& p) { return std::adjacent_find(p.ctx.begin(), p.ctx.end(), std::not_equal_to<>()) != p.ctx.end(); }

std::string request_entry(const Problem& p, std::int64_t r) {
    if (p.batch == 1) return p.kv_heads == 1 ? "h0" : "h0 \u2026 h" + std::to_string(p.kv_heads - 1) + " (kv-heads)";
    return "b" + std::to_string(r) + (ragged(p) ? " ctx " + std::to_string(p.ctx[static_cast<std::size_t>(r)]) : "");
}

std::string hue_entry(const Problem& p, std::int64_t first) {
    const auto cycle = static_cast<std::int64_t>(request_palette.size());
    std::string text = "b" + std::to_string(first);
    for (std::int64_t r = first + cycle; r < p.batch && r <= first + 2 * cycle; r += cycle) text += ", b" + std::to_string(r);
    return text + (first + 3 * cycle < p.batch ? ", \u2026" : "");
}

double entry_width(const RequestLegendEntry& e) { return request_swatch_width + text_gap + 0.52 * font * static_cast<double>(e.text.size()) + 20; }

}  // namespace

std::vector<RequestLegendEntry> request_legend_entries(const Problem& p) {
    std::vector<RequestLegendEntry> entries;
    const auto cycle = static_cast<std::int64_t>(request_palette.size());
    const bool by_hue = p.batch > max_listed_requests;
    for (std::int64_t r = 0; r < (by_hue ? cycle : p.batch); ++r) entries.push_back({r, by_hue ? hue_entry(p, r) : request_entry(p, r)});
    return entries;
}

void draw_request_swatch(SvgWriter& svg, const Problem& p, std::int64_t request, double x, double baseline) {
    const std::int64_t n = std::min(p.kv_heads, max_swatch_shades);
    const double w = request_swatch_width / static_cast<double>(n);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t head = n == 1 ? 0 : i * (p.kv_heads - 1) / (n - 1);
        svg.rect(x + w * static_cast<double>(i), baseline - 10, w, 12, request_color(request, head, p.kv_heads), {}, "class=\"legend-shade\"");
    }
    svg.rect(x, baseline - 10, request_swatch_width, 12, "none", {},
             "class=\"legend-request\" data-request=\"" + std::to_string(request) + "\" stroke=\"#bbb\" stroke-width=\"0.5\"");
}

namespace {

struct Placed {
    double x;
    int row;
};

// Where each entry goes: rows of one palette cycle where they fit, else flowed and wrapped at `right`.
std::vector<Placed> place(const std::vector<RequestLegendEntry>& entries, double left, double right) {
    const std::size_t columns = request_palette.size();
    double column_w = 0;
    for (const RequestLegendEntry& e : entries) column_w = std::max(column_w, entry_width(e));
    const bool grid = left + column_w * static_cast<double>(columns) <= right;
    std::vector<Placed> at;
    double x = left;
    int row = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (grid) {
            at.push_back({left + column_w * static_cast<double>(i % columns), static_cast<int>(i / columns)});
            continue;
        }
        if (x > left && x + entry_width(entries[i]) > right) x = left, ++row;
        at.push_back({x, row});
        x += entry_width(entries[i]);
    }
    return at;
}

}  // namespace

int request_legend_rows(const Problem& p, double left, double right) {
    const std::vector<Placed> at = place(request_legend_entries(p), left, right);
    return at.empty() ? 0 : at.back().row + 1;
}

int draw_request_legend(SvgWriter& svg, const Problem& p, double left, double right, double y0, double row) {
    const std::vector<RequestLegendEntry> entries = request_legend_entries(p);
    const std::vector<Placed> at = place(entries, left, right);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const double y = y0 + row * at[i].row;
        draw_request_swatch(svg, p, entries[i].request, at[i].x, y);
        svg.text(at[i].x + request_swatch_width + text_gap, y, entries[i].text, font, "start", "fill=\"#222\"");
    }
    return at.empty() ? 0 : at.back().row + 1;
}

}  // namespace leanattn::app

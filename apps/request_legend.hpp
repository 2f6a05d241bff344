// request_legend.hpp — the requests' part of a picture's legend, the same in `schedule`, `simulate` and the trace
// comparison: each request's hue (svg.hpp's palette) with its KV heads' shades, named "b3" (with its ctx where the
// batch is ragged), so that a colour names the same request in every picture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "svg.hpp"

namespace leanattn::app {

struct RequestLegendEntry {
    std::int64_t request = 0;  // whose shades its swatch shows
    std::string text;
};

// One entry per request ("b3", "b3 ctx 1200" where the batch is ragged; a lone request names its KV heads), or past
// 24 requests one per hue naming the requests that share it ("b3, b11, b19, …").
std::vector<RequestLegendEntry> request_legend_entries(const Problem& problem);

// A request's swatch: its heads' shades side by side (at most 8, evenly sampled, the first and the last included),
// request_swatch_width × 12 px with its top-left corner at (x, baseline − 10).
inline constexpr double request_swatch_width = 24;
void draw_request_swatch(SvgWriter& svg, const Problem& problem, std::int64_t request, double x, double baseline);

// The entries in rows of one palette cycle (requests sharing a hue share a column), or flowed where such a row would
// not fit between `left` and `right`; the first row's baseline at y0, rows `row` apart. Returns the rows drawn, which
// request_legend_rows tells before drawing (a picture's height depends on them).
int draw_request_legend(SvgWriter& svg, const Problem& problem, double left, double right, double y0, double row);
int request_legend_rows(const Problem& problem, double left, double right);

}  // namespace leanattn::app

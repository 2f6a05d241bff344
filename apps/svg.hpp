// svg.hpp — a tiny SVG writer shared by every picture the app draws (schedules, timelines, sweeps).
//
// Just enough for rectangles, lines, text and groups with tooltips; output is a standalone document
// that a browser opens directly and that an HTML page can inline. Also the colors every picture shares:
// the request palette (a hue per request, shaded by kv-head) and the state marks kept out of it.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <string>

namespace leanattn::app {

inline std::string xml_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// ---- Colors. One palette, one meaning: hues are requests, everything else is grey or purple. ----

struct Rgb {
    int r = 0, g = 0, b = 0;
};

inline Rgb parse_hex(const std::string& hex) {  // "#rrggbb"
    const long v = std::strtol(hex.c_str() + 1, nullptr, 16);
    return {static_cast<int>((v >> 16) & 255), static_cast<int>((v >> 8) & 255), static_cast<int>(v & 255)};
}

inline std::string to_hex(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

// a + (b − a)·t per channel: towards black or white keeps the hue and changes only the lightness.
inline Rgb mix(Rgb a, Rgb b, double t) {
    const auto ch = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
    return {ch(a.r, b.r), ch(a.g, b.g), ch(a.b, b.b)};
}

// The requests' hues: blue, orange, green, red, teal, yellow, pink, lime, at least 25° apart on the color
// wheel, and none grey or purple: those belong to the marks below, so a request is never mistaken for a
// state. Adjacent requests get contrasting hues; past the eighth request the hues repeat.
inline const std::array<const char*, 8> request_palette = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                           "#76b7b2", "#e2d642", "#e377c2", "#8cc43f"};

inline std::string request_hue(std::int64_t request) {
    return request_palette[static_cast<std::size_t>(request) % request_palette.size()];
}

// Output (request, kv-head) of a request with `heads` kv-heads: the request's hue, darkest for the first
// head and lightest for the last (a lone head gets the hue itself). The range is kept short of black and
// white so that the hue still reads at both ends.
inline std::string request_color(std::int64_t request, std::int64_t head, std::int64_t heads) {
    constexpr double darkest = 0.35, lightest = 0.5;  // share of black / white mixed in at the ends
    const double t = heads > 1 ? static_cast<double>(head) / static_cast<double>(heads - 1) : 0.5;
    const Rgb hue = parse_hex(request_hue(request));
    return to_hex(t < 0.5 ? mix(hue, {0, 0, 0}, (0.5 - t) * 2 * darkest) : mix(hue, {255, 255, 255}, (t - 0.5) * 2 * lightest));
}

// Marks that are not requests, shared by `schedule` and `simulate` so each means the same in both.
inline const char* const reduce_color = "#5b2a86";  // merging partials: host merges, partial stores, reduce launch
inline const char* const busy_color = "#6f6f6f";    // simulate: an SM busy otherwise than streaming (set-up, writing outputs)
inline const char* const idle_color = "#efefef";    // no CTA in the slot / on the SM
inline const char* const waiting_fill = "url(#waiting)";  // hatched grey: a host waiting for its peers' partials
inline const char* const waiting_pattern =
    "<pattern id=\"waiting\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#d9d9d9\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8c8c8c\" stroke-width=\"2\"/></pattern>";

// Times as a picture prints them: µs below 10 ms, ms from there ("180.1 ms", not "180079.5 us").
struct TimeUnit {
    double ns_per_unit;
    const char* name;
};
inline TimeUnit time_unit_for(double longest_ns) { return longest_ns >= 1e7 ? TimeUnit{1e6, "ms"} : TimeUnit{1e3, "us"}; }

// A count with thousands separators: 8,388,608.
inline std::string grouped(std::int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return (n < 0 ? "-" : "") + out;
}

class SvgWriter {
public:
    SvgWriter(double width, double height) : width_(width), height_(height) {}

    SvgWriter& rect(double x, double y, double w, double h, const std::string& fill, const std::string& title = {},
                    const std::string& extra = {}) {
        body_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w) << "\" height=\"" << num(h) << "\" fill=\"" << fill << "\"";
        if (!extra.empty()) body_ << " " << extra;
        if (title.empty()) body_ << "/>\n";
        else body_ << "><title>" << xml_escape(title) << "</title></rect>\n";
        return *this;
    }
    SvgWriter& line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1.0, const std::string& extra = {}) {
        body_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2) << "\" stroke=\"" << stroke
              << "\" stroke-width=\"" << num(width) << "\"" << (extra.empty() ? "" : " " + extra) << "/>\n";
        return *this;
    }
    SvgWriter& text(double x, double y, const std::string& content, double size = 12.0, const std::string& anchor = "start",
                    const std::string& extra = {}) {
        body_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(size) << "\" text-anchor=\"" << anchor << "\""
              << (extra.empty() ? "" : " " + extra) << ">" << xml_escape(content) << "</text>\n";
        return *this;
    }
    // Raw markup (defs, paths, polylines) for what the helpers above do not cover.
    SvgWriter& raw(const std::string& markup) {
        body_ << markup << "\n";
        return *this;
    }

    void write(std::ostream& out) const {
        out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width_) << "\" height=\"" << num(height_) << "\" viewBox=\"0 0 "
            << num(width_) << " " << num(height_) << "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
            << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
            << body_.str() << "</svg>\n";
    }

    static std::string num(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f", v);
        std::string s = buf;
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
        return s;
    }

private:
    double width_, height_;
    std::ostringstream body_;
};

}  // namespace leanattn::app

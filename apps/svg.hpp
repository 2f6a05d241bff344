// svg.hpp — a tiny SVG writer shared by every picture the app draws (schedules, timelines, sweeps).
//
// Just enough for rectangles, lines, text and groups with tooltips; output is a standalone document
// that a browser opens directly and that an HTML page can inline.
#pragma once

#include <cstdio>
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

// A categorical color for index i (outputs, strategies): well separated hues, readable on white.
inline std::string palette_color(std::int64_t i) {
    static const char* colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                                   "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295"};
    return colors[static_cast<std::size_t>(i % 12)];
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

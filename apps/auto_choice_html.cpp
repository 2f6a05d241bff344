// auto_choice_html.cpp — see auto_choice_html.hpp.
#include "auto_choice_html.hpp"

#include <cstdio>

#include "svg.hpp"

namespace leanattn::app {

namespace {

std::string us(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string percent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "at most %+.1f%%", -100.0 * share);  // a margin of 3%: at least 3% faster than the choice so far
    return buf;
}

}  // namespace

std::string auto_choice_html(const nlohmann::ordered_json& a, const std::string& strategy, std::int64_t grid) {
    if (a.is_null()) return {};
    const bool capacity = a["planned_for"] == "capacity";
    const double chosen_us = a["predicted_us"].get<double>();
    std::string html = "<h2>Why this plan (<code>--strategy auto</code>)</h2>\n<p>Each candidate was played on the simulator under kernel model <code>" +
                       xml_escape(a["kernel"].get<std::string>()) + "</code> on <code>" + xml_escape(a["device"].get<std::string>()) + "</code>, " +
                       (capacity ? "at a cache's capacity and at two draws of ragged live lengths below it (its time: the mean)"
                                 : "at the problem's own lengths") +
                       ", in this order; a later one replaces the choice so far only when predicted faster by its margin. "
                       "&gt;T: ruled out by a lower bound T of its time before it was played to its end. Chosen: " +
                       us(chosen_us) + " \u00b5s.</p>\n"
                       "<table><tr><th class=\"l\">strategy</th><th>grid</th><th>splits</th><th>tile rows</th><th>predicted \u00b5s</th>"
                       "<th>its time vs the choice so far, to replace it</th><th class=\"l\"></th></tr>\n";
    bool marked = false, first = true;
    for (const auto& c : a["candidates"]) {
        const bool simulated = c["simulated"].get<bool>();
        const bool chosen = !marked && simulated && c["strategy"] == strategy && c["grid"].get<std::int64_t>() == grid && c["predicted_us"].get<double>() == chosen_us;
        marked = marked || chosen;
        const std::int64_t rows = c["tile_rows"].get<std::int64_t>();
        html += std::string("<tr") + (chosen ? " class=\"chosen\" style=\"font-weight:bold\"" : "") + "><td class=\"l\">" +
                xml_escape(c["strategy"].get<std::string>()) + "</td><td>" + std::to_string(c["grid"].get<std::int64_t>()) + "</td><td>" +
                std::to_string(c["splits"].get<std::int64_t>()) + "</td><td>" + (rows > 0 ? std::to_string(rows) : "the problem's") + "</td><td>" +
                (simulated ? "" : "&gt;") + us(c["predicted_us"].get<double>()) + "</td><td>" + (first ? "the first: the choice so far" : percent(c["margin"].get<double>())) +
                "</td><td class=\"l\">" +
                (chosen ? "chosen" : "") + "</td></tr>\n";
        first = false;
    }
    return html + "</table>\n";
}

std::string auto_chooser(const nlohmann::ordered_json& auto_choice) {
    if (auto_choice.is_null()) return {};
    return "auto (kernel model " + auto_choice.value("kernel", std::string("?")) + ")";
}

}  // namespace leanattn::app

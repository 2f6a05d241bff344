// schedule_html.cpp — see schedule_html.hpp.
#include "schedule_html.hpp"

#include <sstream>
#include <string>

#include "auto_choice_html.hpp"
#include "schedule_svg.hpp"
#include "schedule_text.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

constexpr std::size_t max_output_rows = 64;    // a page, not a dump: --format json lists every output
constexpr std::size_t max_listed_ctas = 12;

const char* const style =
    "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1240px;color:#222;line-height:1.4}"
    "h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px}.sub{color:#555;margin-top:0}"
    ".figure{overflow-x:auto;border:1px solid #ddd;padding:4px}.figure svg{max-width:100%;height:auto}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 10px;text-align:right}"
    "th{background:#f2f2f2}td.l,th.l{text-align:left}pre{background:#f6f6f6;padding:10px;font-size:12px;overflow-x:auto}"
    ".sw{display:inline-block;width:14px;height:11px;vertical-align:middle;margin-right:4px;border:1px solid #bbb}";

std::string contributors(const OutputRow& o) {
    std::string out;
    for (std::size_t i = 0; i < o.ctas.size() && i < max_listed_ctas; ++i) out += (i ? ", " : "") + std::to_string(o.ctas[i]);
    if (o.ctas.size() > max_listed_ctas) out += ", \u2026 (" + std::to_string(o.ctas.size()) + " CTAs)";
    return out;
}

void write_marks(std::ostream& out, const Schedule& s) {
    out << "<h2>Reading the picture</h2>\n<ul>\n"
        << "<li>One row per SM; with several resident CTAs per SM the row holds one lane per CTA slot (CTA <i>g</i> sits in "
           "slot <i>g</i> mod SMs\u00d7CTAs-per-SM). CTAs of later waves follow the earlier CTA of their slot.</li>\n"
        << "<li>x is idealised time in LeanTiles: every LeanTile costs the same, so the picture shows the plan's balance, "
           "not its speed (<code>leanattn simulate</code> predicts times).</li>\n"
        << "<li>Each segment (a run of one output's LeanTiles done by one CTA) is colored by its request: the request's hue "
           "(one of 8, repeating past the eighth request), shaded by the output's kv-head from darkest (h0) to lightest. When wide "
           "enough it is labeled like <code>b1h0[0,2)</code>: output, then its LeanTiles; on thin rows each run of a request's "
           "CTAs is labeled with the request (<code>b1</code>). Hover a block for details.</li>\n"
        << "<li>Only requests have hues: purple is merging, greys are waiting and idle, black marks hosts. "
           "<code>leanattn simulate</code> uses the same purple and greys for SM states.</li>\n"
        << "<li>A black corner flag (a dark tick on thin rows) marks the host: the CTA holding the output's first LeanTile, "
           "which merges the other contributors' partials with the softmax re-scaling operator.</li>\n";
    if (s.fused_reduction()) {
        out << "<li>Purple after a host: its merge of the peers' partials in the same launch, sized by the number of partials "
               "(at most \u00bc LeanTile each, as the legend says; not to scale: a merge reads d floats, a LeanTile streams 2\u00d7tile\u00d7d keys and values). On small plans an arrow "
               "runs from where each peer stores its partial (the end of its first segment) into the merge.</li>\n"
            << "<li>Hatched grey is a host waiting for a peer's partial: every CTA starts at once and a peer's partial is its first "
               "segment, so a host waits where it holds fewer LeanTiles before its merge than a peer does before its partial (the "
               "aligned rule's snapped starts can do that). Waits from unequal costs: <code>leanattn simulate</code> shows "
               "them.</li>\n";
    } else if (s.launches > 1) {
        out << "<li>Purple after the dashed line is the second launch: one CTA per output merges its splits' partials, sized like the in-launch merges.</li>\n"
            << "<li>A dashed outline is an empty CTA: a chunk past the end of a shorter request, which exits at once.</li>\n";
    }
    out << "<li>Light grey is an idle CTA slot.</li>\n</ul>\n";
}

void write_outputs(std::ostream& out, const Schedule& s, const ScheduleTable& t) {
    out << "<h2>Outputs</h2>\n<p>An output tile is one (request, KV head) pair; its host CTA is listed first among its contributors.</p>\n"
        << "<table><tr><th class=\"l\">output (color)</th><th>request</th><th>kv-head</th><th>LeanTiles</th><th>host CTA</th><th class=\"l\">contributors</th></tr>\n";
    for (std::size_t i = 0; i < t.outputs.size() && i < max_output_rows; ++i) {
        const OutputRow& o = t.outputs[i];
        out << "<tr><td class=\"l\"><span class=\"sw\" style=\"background:" << output_color(s.problem, o.output) << "\"></span>"
            << xml_escape(output_label(s.problem, o.output)) << "</td><td>" << o.batch << "</td><td>" << o.kv_head << "</td><td>" << o.tiles
            << "</td><td>" << o.host_cta << "</td><td class=\"l\">" << contributors(o) << "</td></tr>\n";
    }
    out << "</table>\n";
    if (t.outputs.size() > max_output_rows) {
        out << "<p>\u2026 and " << t.outputs.size() - max_output_rows << " more outputs (<code>--format json</code> lists them all).</p>\n";
    }
}

}  // namespace

void write_schedule_html(std::ostream& out, const Schedule& s, const ScheduleTable& t, const nlohmann::ordered_json& auto_choice) {
    std::ostringstream text;
    write_schedule_text(text, s, t);
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>leanattn schedule: " << xml_escape(schedule_headline(s))
        << "</title>\n<style>" << style << "</style>\n</head><body>\n"
        << "<h1>" << xml_escape(schedule_headline(s)) << "</h1>\n<p class=\"sub\">" << xml_escape(schedule_problem_line(s)) << "</p>\n"
        << "<div class=\"figure\">\n";
    write_schedule_svg(out, s, t, auto_chooser(auto_choice));
    out << "</div>\n";
    write_marks(out, s);
    out << "<h2>Plan</h2>\n<pre>" << xml_escape(text.str()) << "</pre>\n";
    out << auto_choice_html(auto_choice, std::string(strategy_name(s.strategy)), s.grid);
    write_outputs(out, s, t);
    out << "<p class=\"sub\">Made by <code>leanattn schedule --format html</code>.</p>\n</body></html>\n";
}

}  // namespace leanattn::app

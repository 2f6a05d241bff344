// The pictures, read back as markup. Schedules: Figure 1 drawn with one rect per segment in its output's color
// and at its place in idealised time, its two host merges and the arrows feeding them, lanes and waves where
// they belong, fixed-split's reduce launch and empty CTAs, a self-contained HTML page, and big plans that stay
// small. Colors: a hue per request shaded by kv-head, the same palette in `schedule` and `simulate`, whose
// state colors stay out of it; merges in `simulate` to scale; `sweep` curves that coincide both drawn. The
// pictures were also looked at (browser, rsvg-convert); these checks guard what was seen.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>
#include <unistd.h>

#include "run_command.hpp"
#include "schedule_svg.hpp"
#include "svg.hpp"

using leanattn::testing::run_leanattn;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// Every opened element (but HTML's <meta>) closed in order, every '&' an entity: enough XML to be sure a browser reads it.
std::string markup_problem(const std::string& doc) {
    std::vector<std::string> open;
    for (std::size_t at = doc.find('<'); at != std::string::npos; at = doc.find('<', at + 1)) {
        const std::size_t end = doc.find('>', at);
        if (end == std::string::npos) return "unterminated tag at " + std::to_string(at);
        const std::string tag = doc.substr(at + 1, end - at - 1);
        if (tag.empty() || tag[0] == '!' || tag[0] == '?') continue;
        if (tag[0] == '/') {
            const std::string name = tag.substr(1);
            if (open.empty() || open.back() != name) return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
            open.pop_back();
        } else if (tag.back() != '/') {
            const std::string name = tag.substr(0, tag.find_first_of(" \n"));
            if (name != "meta") open.push_back(name);  // HTML's one void element here
        }
    }
    for (std::size_t at = doc.find('&'); at != std::string::npos; at = doc.find('&', at + 1)) {
        const std::string rest = doc.substr(at, 6);
        if (rest.rfind("&amp;", 0) && rest.rfind("&lt;", 0) && rest.rfind("&gt;", 0) && rest.rfind("&quot;", 0)) return "bare & at " + std::to_string(at);
    }
    return open.empty() ? "" : "<" + open.back() + "> never closed";
}

struct Element {
    std::string tag;
    std::string attr(const std::string& name) const {
        const std::size_t at = tag.find(" " + name + "=\"");
        if (at == std::string::npos) return {};
        const std::size_t from = at + name.size() + 3;
        return tag.substr(from, tag.find('"', from) - from);
    }
    double num(const std::string& name) const { return std::stod(attr(name)); }
};

// The opening tags carrying class="<cls>", in document order.
std::vector<Element> elements(const std::string& doc, const std::string& cls) {
    std::vector<Element> out;
    const std::string key = "class=\"" + cls + "\"";
    for (std::size_t at = doc.find(key); at != std::string::npos; at = doc.find(key, at + 1)) {
        const std::size_t begin = doc.rfind('<', at), end = doc.find('>', at);
        out.push_back({doc.substr(begin, end - begin + 1)});
    }
    return out;
}

std::vector<Element> of_cta(const std::vector<Element>& all, int cta) {
    std::vector<Element> out;
    for (const Element& e : all) if (e.attr("data-cta") == std::to_string(cta)) out.push_back(e);
    return out;
}

// HSL hue in degrees and lightness in [0, 1] of "#rrggbb".
double hue(const std::string& hex) {
    const auto c = leanattn::app::parse_hex(hex);
    const double r = c.r / 255.0, g = c.g / 255.0, b = c.b / 255.0, hi = std::max({r, g, b}), lo = std::min({r, g, b});
    if (hi == lo) return 0;
    const double h = hi == r ? std::fmod((g - b) / (hi - lo) + 6, 6.0) : hi == g ? (b - r) / (hi - lo) + 2 : (r - g) / (hi - lo) + 4;
    return 60 * h;
}
double lightness(const std::string& hex) {
    const auto c = leanattn::app::parse_hex(hex);
    return (std::max({c.r, c.g, c.b}) + std::min({c.r, c.g, c.b})) / 510.0;
}
double hue_distance(const std::string& a, const std::string& b) {
    const double d = std::abs(hue(a) - hue(b));
    return std::min(d, 360 - d);
}

// Every color a problem's outputs can get: its requests' hues at each of its heads' shades, and the bare hues.
std::set<std::string> request_colors(std::int64_t batch, std::int64_t heads) {
    std::set<std::string> out(leanattn::app::request_palette.begin(), leanattn::app::request_palette.end());
    for (std::int64_t r = 0; r < batch; ++r) {
        for (std::int64_t h = 0; h < heads; ++h) out.insert(leanattn::app::request_color(r, h, heads));
    }
    return out;
}

// Every "#rrggbb" in a document's fill and stroke attributes.
std::set<std::string> paint_colors(const std::string& doc) {
    std::set<std::string> out;
    const std::regex paint("(fill|stroke)=\"(#[0-9a-f]{6})\"");
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), paint); it != std::sregex_iterator(); ++it) out.insert((*it)[2]);
    return out;
}

const std::string figure1_problem = "schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280";
const std::string figure1 = figure1_problem + " --stream-k-rule paper";
const std::string h100_big = "schedule --device h100-sxm --batch 6 --heads 48 --head-dim 64 --ctx 65536";

}  // namespace

TEST_CASE("the Figure 1 SVG is well-formed and has one rect per segment, in its output's color") {
    const auto r = run_leanattn(figure1 + " --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("<svg", 0) == 0);
    CHECK(markup_problem(r.out).empty());
    const auto segs = elements(r.out, "seg");
    REQUIRE(segs.size() == 6);  // CTA2 holds two segments
    for (const Element& e : segs) {
        CAPTURE(e.tag);
        CHECK(e.attr("fill") == leanattn::app::request_color(0, std::stoi(e.attr("data-output")), 2));  // one request, h0 and h1
    }
    CHECK(count(r.out, "data-output=\"0\"") == 3);
    CHECK(count(r.out, "data-output=\"1\"") == 3);
    CHECK(count(r.out, "class=\"legend-request\"") == 1);  // the one request
    CHECK(count(r.out, "class=\"legend-shade\"") == 2);    // in its two heads' shades
    CHECK(count(r.out, "class=\"request-label\"") == 0);   // rows wide enough for segment labels need none
    CHECK(count(r.out, ">h1[0,1)<") == 1);  // labels where there is room
}

TEST_CASE("Figure 1: CTA2 switches from h0 to h1, widths follow LeanTiles, every CTA ends together") {
    const auto segs = elements(run_leanattn(figure1 + " --format svg").out, "seg");
    const auto cta2 = of_cta(segs, 2);
    REQUIRE(cta2.size() == 2);
    CHECK(cta2[0].attr("data-output") == "0");
    CHECK(cta2[1].attr("data-output") == "1");
    CHECK(cta2[1].num("x") == Approx(cta2[0].num("x") + cta2[0].num("width")));
    const Element h0_first = of_cta(segs, 0).at(0);  // h0[0,2): twice CTA2's h0[4,5)
    CHECK(h0_first.num("width") == Approx(2 * cta2[0].num("width")));
    for (int cta = 0; cta < 5; ++cta) {
        const Element last = of_cta(segs, cta).back();
        CHECK(last.num("x") + last.num("width") == Approx(h0_first.num("x") + h0_first.num("width")));
        if (cta > 0) CHECK(last.num("y") > of_cta(segs, cta - 1).back().num("y"));  // one row per SM, in order
    }
}

TEST_CASE("Figure 1: hosts CTA0 and CTA2 each merge two partials, fed by one arrow per peer, and nobody waits") {
    const auto r = run_leanattn(figure1 + " --format svg");
    const auto merges = elements(r.out, "reduce");
    REQUIRE(merges.size() == 2);
    CHECK(merges[0].attr("data-cta") == "0");
    CHECK(merges[1].attr("data-cta") == "2");
    for (const Element& m : merges) CHECK(m.attr("data-peers") == "2");
    CHECK(merges[0].num("width") == Approx(merges[1].num("width")));
    CHECK(count(r.out, "class=\"arrow\"") == 4);
    CHECK(count(r.out, "class=\"host\"") == 2);
    CHECK(count(r.out, "class=\"wait\"") == 0);  // in idealised time a stream-k host never waits (schedule_svg.cpp)
    CHECK(count(r.out, ">h0 \u2190 CTA1,2<") == 1);
}

TEST_CASE("two CTAs per SM: one lane each in the SM's row, CTA g in slot g mod resident") {
    const auto segs = elements(run_leanattn("schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1792 --ctas-per-sm 2 --stream-k-rule paper --format svg").out, "seg");
    const double lane = of_cta(segs, 0).at(0).num("height") + 1;  // rects are inset by half a pixel each side
    CHECK(of_cta(segs, 5).at(0).num("y") == Approx(of_cta(segs, 0).at(0).num("y") + lane));   // SM0, second lane
    CHECK(of_cta(segs, 1).at(0).num("y") > of_cta(segs, 5).at(0).num("y") + lane - 0.01);    // SM1 below both
    CHECK(of_cta(segs, 5).at(0).num("x") == Approx(of_cta(segs, 0).at(0).num("x")));         // both start at once
}

TEST_CASE("fixed-split: the second wave follows the first in its slot, then the reduce launch merges each output") {
    const auto r = run_leanattn(figure1_problem + " --strategy fixed-split --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const auto segs = elements(r.out, "seg");
    REQUIRE(segs.size() == 10);  // 2 outputs x 5 splits, on 5 slots: two waves
    const Element first = of_cta(segs, 0).at(0), second = of_cta(segs, 5).at(0);
    CHECK(second.num("y") == Approx(first.num("y")));
    CHECK(second.num("x") == Approx(first.num("x") + first.num("width")));
    const auto reduce = elements(r.out, "reduce-launch");
    REQUIRE(reduce.size() == 2);
    CHECK(reduce[0].num("x") == Approx(second.num("x") + second.num("width")).margin(0.02));  // coordinates have 2 decimals
    CHECK(count(r.out, "class=\"reduce\"") == 0);  // no merges inside the first launch
    CHECK(count(r.out, "class=\"arrow\"") == 0);
}

TEST_CASE("fixed-split on a ragged batch draws an empty CTA for every chunk past a shorter request") {
    const std::string problem = "schedule --device paper-5sm --batch 2 --heads 1 --head-dim 64 --ctx 256,1280 --strategy fixed-split";
    const auto plan = nlohmann::json::parse(run_leanattn(problem + " --format json").out);
    std::size_t empty = 0, segments = 0;
    for (const auto& cta : plan["ctas"]) {
        empty += cta["segments"].empty() ? 1 : 0;
        segments += cta["segments"].size();
    }
    REQUIRE(empty > 0);
    const auto r = run_leanattn(problem + " --format svg");
    CHECK(elements(r.out, "empty").size() == empty);
    CHECK(elements(r.out, "seg").size() == segments);
    CHECK(r.out.find("empty CTA") != std::string::npos);  // and the legend says what the dashed box is
}

TEST_CASE("the HTML page is self-contained and holds the picture, the marks explained and the outputs") {
    const auto r = run_leanattn(figure1 + " --format html");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(markup_problem(r.out.substr(r.out.find("<html"))).empty());
    CHECK(count(r.out, "<svg") == 1);
    CHECK(count(r.out, "http") == count(r.out, "http://www.w3.org/2000/svg"));  // no external resources
    CHECK(count(r.out, "src=") == 0);
    CHECK(count(r.out, "<tr>") == 3);  // header + 2 outputs
    CHECK(r.out.find("Reading the picture") != std::string::npos);
}

TEST_CASE("a big plan renders readably small under every strategy, still one rect per segment") {
    for (const std::string strategy : {"stream-k", "fixed-split", "no-split"}) {
        CAPTURE(strategy);
        const std::string problem = h100_big + " --strategy " + strategy;
        const auto plan = nlohmann::json::parse(run_leanattn(problem + " --format json").out);
        std::size_t segments = 0;
        for (const auto& cta : plan["ctas"]) segments += cta["segments"].size();
        const auto r = run_leanattn(problem + " --format svg");
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.size() < 1000000);
        CHECK(markup_problem(r.out).empty());
        CHECK(elements(r.out, "seg").size() == segments);
        CHECK(count(r.out, "class=\"legend-request\"") == 6);
        CHECK(count(r.out, "class=\"legend-shade\"") == 6 * 8);  // 8 of their 48 heads' shades each
        CHECK(count(r.out, "hues repeat") == 0);                     // 6 requests: no hue used twice
        CHECK(count(r.out, "class=\"request-label\"") >= 6);       // thin rows: every request named on its CTAs
        CHECK(count(r.out, "class=\"arrow\"") == 0);
    }
    const auto html = run_leanattn(h100_big + " --format html");
    CHECK(count(html.out, "<tr>") == 65);  // the table is capped
    CHECK(html.out.find("224 more outputs") != std::string::npos);
}

TEST_CASE("on a made-up device of 65,536 SMs a 4-CTA plan draws the 4 SMs it uses and says so") {
    std::string text = leanattn::testing::slurp(std::string(LEANATTN_SOURCE_DIR) + "/data/devices/h100-sxm.json");
    const std::string from = "\"sms\": 132";
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), "\"sms\": 65536");
    const std::string path = "/tmp/leanattn-65536-sms-" + std::to_string(::getpid()) + ".json";
    std::ofstream(path) << text;
    const auto r = run_leanattn("schedule --device " + path + " --heads 4 --kv-heads 4 --ctx 512 --format svg");
    std::remove(path.c_str());
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.size() < 50000);  // every SM's row made 6 MB
    CHECK(markup_problem(r.out).empty());
    CHECK(count(r.out, "class=\"idle\"") == 4);
    CHECK(r.out.find("65532 more idle, not drawn") != std::string::npos);
    // A real GPU keeps a row for every SM, idle or not: that no-split leaves SMs idle is what the picture shows (h100-sxm's
    // 2 CTAs per SM: a block of 132 rows for each slot).
    const auto h100 = run_leanattn("schedule --heads 4 --kv-heads 4 --ctx 512 --format svg");
    CHECK(count(h100.out, "class=\"idle\"") == 2 * 132);
    CHECK(h100.out.find("slot 0 of each SM: CTA0-3<") != std::string::npos);  // the 4 CTAs there are, not 132
    CHECK(h100.out.find("slot 1 of each SM: no CTA<") != std::string::npos);
    CHECK(count(r.out, "class=\"slot-block\"") == 0);  // the made-up device's rows are trimmed to its grid: one block
}

TEST_CASE("at H100 scale an SM's two CTA slots are two blocks of SM rows, not lanes too thin to tell apart, each block named") {
    // Fixed-split on 224 CTAs over 132 SMs x 2: CTA g in block g / 132, row g mod 132.
    const auto r = run_leanattn("schedule --model llama-3-8b --batch 4 --ctx 500,8000,1200,30000 --strategy fixed-split --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    // CTA o * 7 + split runs output o's split; b1's 63 LeanTiles fill splits 0-1 of its outputs 8-15 (CTAs 56, 57, 63,
    // 64, …), b3's 235 all 7 splits of outputs 24-31 (CTAs 168-223).
    const auto segs = elements(r.out, "seg");
    const auto y = [&](int cta) { return of_cta(segs, cta).at(0).num("y"); };
    const double row = y(57) - y(56);
    CHECK(row > 1.0);
    CHECK(y(64) == Approx(y(56) + 8 * row).margin(0.5));        // rows are SMs, in CTA order (coordinates to 0.01 px)
    CHECK(y(168) > y(57) + (131 - 57) * row);                  // CTA 168, slot 1 of SM 36: below the whole first block
    CHECK(y(200) == Approx(y(168) + 32 * row).margin(0.5));      // SM 68's slot 1
    CHECK(count(r.out, "class=\"slot-block\"") == 2);
    CHECK(r.out.find("slot 1 of each SM: CTA132-223<") != std::string::npos);  // the grid's last CTA
    // A toy GPU's lanes are tall enough to stay side by side in each SM's row (the test above).
    CHECK(count(run_leanattn("schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1792 --ctas-per-sm 2 --format svg").out, "class=\"slot-block\"") == 0);
}

TEST_CASE("an unknown picture format is refused with exit 2") {
    const auto r = run_leanattn(figure1 + " --format png");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--format") != std::string::npos);
}

TEST_CASE("the request palette: a hue per request, lightness per kv-head, and none of the state colors") {
    using namespace leanattn::app;
    const std::size_t hues = request_palette.size();
    for (std::size_t a = 0; a < hues; ++a) {
        for (std::size_t b = a + 1; b < hues; ++b) {
            CAPTURE(a, b);
            CHECK(hue_distance(request_palette[a], request_palette[b]) >= 20);
        }
    }
    for (std::int64_t r = 0; r < 2 * static_cast<std::int64_t>(hues); ++r) {
        for (std::int64_t h = 0; h < 8; ++h) {
            CAPTURE(r, h);
            CHECK(hue_distance(request_color(r, h, 8), request_hue(r)) < 4);  // shading keeps the hue
            if (h > 0) CHECK(lightness(request_color(r, h, 8)) > lightness(request_color(r, h - 1, 8)) + 0.03);  // darker → lighter
            CHECK(hue_distance(request_color(r, h, 8), reduce_color) >= 30);  // purple is merging, never a request
        }
    }
    CHECK(request_hue(8) == request_hue(0));  // past the palette the hues repeat
    const std::set<std::string> all = request_colors(8, 64);
    for (const std::string state : {reduce_color, busy_color, idle_color}) {
        CAPTURE(state);
        CHECK(all.count(state) == 0);
    }
    for (const std::string grey : {busy_color, idle_color}) CHECK(hue(grey) == 0);  // r = g = b
}

TEST_CASE("a ragged schedule colors by request: one hue per request, shaded by kv-head, and the legend lists the requests") {
    const auto r = run_leanattn("schedule --device paper-5sm --batch 3 --heads 4 --kv-heads 2 --head-dim 64 --ctx 256,1280,768 --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const auto segs = elements(r.out, "seg");
    REQUIRE(segs.size() >= 6);
    for (const Element& a : segs) {
        const int oa = std::stoi(a.attr("data-output")), ra = oa / 2;  // output ids run batch-major: o = b * kv_heads + h
        for (const Element& b : segs) {
            const int ob = std::stoi(b.attr("data-output")), rb = ob / 2;
            CAPTURE(a.tag, b.tag);
            if (ra == rb && oa != ob) {  // same request, other head: same hue, other lightness
                CHECK(hue_distance(a.attr("fill"), b.attr("fill")) < 4);
                CHECK(std::abs(lightness(a.attr("fill")) - lightness(b.attr("fill"))) > 0.1);
            } else if (ra != rb) {
                CHECK(hue_distance(a.attr("fill"), b.attr("fill")) >= 20);
            }
        }
    }
    CHECK(count(r.out, "class=\"legend-request\"") == 3);
    CHECK(r.out.find(">b1 ctx 1280<") != std::string::npos);
    CHECK(r.out.find("shade: kv-head") != std::string::npos);
    const auto html = run_leanattn("schedule --device paper-5sm --batch 3 --heads 4 --kv-heads 2 --head-dim 64 --ctx 256,1280,768 --format html");
    CHECK(html.out.find("background:" + leanattn::app::request_color(1, 1, 2)) != std::string::npos);  // the outputs table's swatch
}

TEST_CASE("at H100 scale the schedule legend shows 16 requests in hue columns and the thin rows name the requests") {
    const auto r = run_leanattn("schedule --model llama-3-8b --batch 16 --ctx 3000,500,8000,1200,16000,700,2500,9000,4000,300,6000,12000,800,2000,5000,1500 --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const auto swatches = elements(r.out, "legend-request");
    REQUIRE(swatches.size() == 16);
    // b8's swatch sits under b0's: a repeated hue stays in its column.
    std::vector<Element> b0, b8;
    for (const Element& e : swatches) {
        if (e.attr("data-request") == "0") b0.push_back(e);
        if (e.attr("data-request") == "8") b8.push_back(e);
    }
    REQUIRE(b0.size() == 1);
    REQUIRE(b8.size() == 1);
    CHECK(b8[0].num("x") == Approx(b0[0].num("x")));
    CHECK(b8[0].num("y") > b0[0].num("y"));
    CHECK(r.out.find("hues repeat every 8 requests") != std::string::npos);
    CHECK(count(r.out, "class=\"request-label\"") >= 10);
    const auto many = run_leanattn("schedule --model llama-3-8b --batch 40 --ctx 2000 --format svg");
    CHECK(count(many.out, "class=\"legend-request\"") == 8);  // past 24 requests: one entry per hue
    CHECK(many.out.find(">b0, b8, b16, \u2026<") != std::string::npos);
}

TEST_CASE("simulate colours K/V streaming by request as schedule does, and SM states in colors that are never a request's") {
    const std::string problem = "--model llama-3-8b --batch 16 --ctx 3000,500,8000,1200,16000,700,2500,9000,4000,300,6000,12000,800,2000,5000,1500";
    const auto r = run_leanattn("simulate " + problem + " --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const std::set<std::string> requests = request_colors(16, 8);
    std::set<std::string> streams;
    for (const Element& e : elements(r.out, "stream")) streams.insert(e.attr("fill"));
    REQUIRE(streams.size() >= 16);  // every request's outputs stream somewhere, in their own shades
    for (const std::string& color : streams) {
        CAPTURE(color);
        CHECK(requests.count(color) == 1);
    }
    const std::set<std::string> used = paint_colors(r.out);
    for (const char* state : {leanattn::app::busy_color, leanattn::app::reduce_color, leanattn::app::idle_color}) {
        CAPTURE(state);
        CHECK(requests.count(state) == 0);
    }
    CHECK(used.count(leanattn::app::busy_color) == 1);
    CHECK(used.count(leanattn::app::reduce_color) == 1);
    CHECK(r.out.find("never a request's hue") != std::string::npos);
    // An output has the same colour in both pictures.
    const std::set<std::string> scheduled = paint_colors(run_leanattn("schedule " + problem + " --format svg").out);
    for (const std::string& color : streams) CHECK(scheduled.count(color) == 1);
    // The schedule of the same problem marks its merges in the same purple.
    CHECK(run_leanattn("schedule " + problem + " --format svg").out.find("fill=\"" + std::string(leanattn::app::reduce_color) + "\"") != std::string::npos);
    // Which hue is which request: the legend names all 16 as schedule's does (b9 ctx 300), and each stream says whose it is.
    CHECK(elements(r.out, "legend-request").size() == 16);
    CHECK(r.out.find(">b9 ctx 300<") != std::string::npos);
    CHECK(r.out.find("<title>b9 h") != std::string::npos);
}

TEST_CASE("long simulations read in ms, and large counts with thousands separators") {
    const auto sim = run_leanattn("simulate --model llama-3-8b --batch 4096 --ctx 4096 --kernel leanattn-h100 --strategy no-split --format svg");
    REQUIRE(sim.exit_code == 0);
    CHECK(sim.out.find("time (ms) from the first launch") != std::string::npos);
    CHECK(sim.out.find(" ms, occupancy") != std::string::npos);
    const auto plan = run_leanattn("schedule --model llama-3-8b --batch 64 --ctx 131072 --format svg");
    REQUIRE(plan.exit_code == 0);
    CHECK(plan.out.find("524,288 LeanTiles") != std::string::npos);  // 64 x 8 outputs of 1,024
    CHECK(run_leanattn("simulate --model llama-3-8b --batch 8 --ctx 4096 --format svg").out.find("time (us) from the first launch") != std::string::npos);
}

TEST_CASE("simulate's legend lists only the states its panels show") {
    const std::string problem = " --model llama-3-8b --batch 4 --ctx 500,8000,1200,30000 --format svg";
    const auto alone = run_leanattn("simulate --strategy no-split" + problem);  // one launch, no partials, no waits
    REQUIRE(alone.exit_code == 0);
    CHECK(alone.out.find(">reduction (partial stores") == std::string::npos);
    CHECK(alone.out.find(">host waiting for peers") == std::string::npos);
    const auto split = run_leanattn("simulate --strategy stream-k" + problem);
    REQUIRE(split.exit_code == 0);
    CHECK(split.out.find(">reduction (partial stores") != std::string::npos);
}

TEST_CASE("a picture of auto's plan says auto chose it, under which kernel model") {
    const std::string problem = " --model llama-3-8b --batch 8 --ctx 4096 --strategy auto --format svg";
    const auto sim = run_leanattn("simulate --kernel leanattn-h100" + problem);
    REQUIRE(sim.exit_code == 0);
    CHECK(sim.out.find("auto (kernel model leanattn-h100) chose ") != std::string::npos);
    const auto plan = run_leanattn("schedule" + problem);
    REQUIRE(plan.exit_code == 0);
    CHECK(plan.out.find("auto (kernel model leanattn-h100) chose ") != std::string::npos);
    CHECK(run_leanattn("schedule --model llama-3-8b --batch 8 --ctx 4096 --strategy no-split --format svg").out.find("chose") == std::string::npos);
}

TEST_CASE("the trace picture: measured and simulated halves on one time axis, CTAs in their outputs' request hues, makespans marked") {
    const auto r = run_leanattn("simulate --kernel leanattn-h100 --trace " + std::string(LEANATTN_SOURCE_DIR) +
                                "/bench/results/raw/gpu-2026-11-26-calibration-v22-h100/cal-device/trace-ragged-b8.json.xz --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const std::set<std::string> requests = request_colors(8, 8);
    const auto segments = elements(r.out, "cta-segment");
    REQUIRE(segments.size() > 500);
    std::set<std::string> fills;
    for (const Element& e : segments) fills.insert(e.attr("fill"));
    for (const std::string& color : fills) {
        CAPTURE(color);
        CHECK(requests.count(color) == 1);
    }
    CHECK(fills.size() >= 8);                                   // every request's outputs somewhere
    CHECK(elements(r.out, "legend-request").size() == 8);       // named as schedule names them
    CHECK(count(r.out, ">measured<") == 3);                     // a half of each of the three strategies
    CHECK(count(r.out, ">simulated<") == 3);
    CHECK(count(r.out, "stroke=\"#d62728\"") == 3 * 2 + 1);   // each half's makespan, and the legend's
}

TEST_CASE("simulate draws reductions at their true duration, and those under a pixel get a tick above the panel, not a wider bar") {
    // Figure 1 under fixed-split: every interval has a tooltip "SM s: state a-b us", so its width can be checked.
    const auto r = run_leanattn("simulate --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --strategy fixed-split --format svg");
    REQUIRE(r.exit_code == 0);
    const std::regex titled("<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"[^>]*><title>SM [0-9]+: [a-z ]+ ([0-9.]+)-([0-9.]+) us</title>");
    std::vector<std::array<double, 4>> rects;  // x, width, begin, end
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), titled); it != std::sregex_iterator(); ++it) {
        rects.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
    }
    REQUIRE(rects.size() >= 4);
    const auto [x0, w0, b0, e0] = rects.front();
    const auto [x1, w1, b1, e1] = rects.back();
    const double px_per_us = (x1 - x0) / (b1 - b0), origin = x0 - b0 * px_per_us;
    std::size_t reductions = 0;
    for (const auto& [x, w, b, e] : rects) {
        CHECK(x == Approx(origin + b * px_per_us).margin(0.02 + 0.006 * px_per_us));  // times in the title have 2 decimals
        CHECK(w == Approx((e - b) * px_per_us).margin(0.02 + 0.011 * px_per_us));
    }
    for (const Element& e : elements(r.out, "reduce")) reductions += e.num("width") > 0 ? 1 : 0;
    CHECK(reductions >= 2);

    // At H100 scale some merges last less than a pixel: drawn that thin (antialiased, not snapped), ticked above.
    const auto big = run_leanattn("simulate --model llama-3-8b --batch 16 --ctx 3000,500,8000,1200,16000,700,2500,9000,4000,300,6000,12000,800,2000,5000,1500 --strategy stream-k --format svg");
    REQUIRE(big.exit_code == 0);
    std::size_t thin = 0;
    for (const Element& e : elements(big.out, "reduce")) {
        if (e.num("width") >= 1) continue;
        ++thin;
        CHECK(e.attr("shape-rendering").empty());
    }
    CHECK(thin > 0);
    CHECK(count(big.out, "class=\"short-reduce\"") > 0);
    CHECK(big.out.find("tick above a panel") != std::string::npos);
    const auto small = run_leanattn("simulate --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --format svg");
    CHECK(count(small.out, "class=\"short-reduce\"") == 0);
    CHECK(small.out.find("tick above a panel") == std::string::npos);  // the legend holds only what is drawn
}

TEST_CASE("sweep curves that coincide are both drawn, each with its own dash, color and marker") {
    // batch 64 x 8 kv-heads fills an H100, so fixed-split plans one split: it is no-split, and LA/FD = LA/FA2.
    const auto r = run_leanattn("sweep --model llama-3-8b --batch 64 --vary ctx --values 1k,4k,16k --no-progress --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const auto curves = elements(r.out, "curve");
    REQUIRE(curves.size() == 2);
    CHECK(curves[0].attr("points") == curves[1].attr("points"));  // they do coincide
    CHECK(curves[0].attr("stroke-dasharray") != curves[1].attr("stroke-dasharray"));
    CHECK(curves[0].attr("stroke") != curves[1].attr("stroke"));
    CHECK(curves[1].num("stroke-width") < curves[0].num("stroke-width"));  // the later one thinner, on top
    const auto markers = elements(r.out, "marker");
    REQUIRE(markers.size() == 2 * 3 + 2);  // every value on both curves, and one in each legend entry
    CHECK(markers[0].tag.rfind("<circle", 0) == 0);
    CHECK(markers[3].tag.rfind("<rect", 0) == 0);
    CHECK(markers[3].attr("fill") == "none");  // hollow: the disc under it shows
    CHECK(count(r.out, "class=\"legend-coincide\"") == 1);
    CHECK(count(r.out, "class=\"legend-coincide-pair\"") == 1);  // the one pair, named with its count
    CHECK(r.out.find(">LA / FA2 (no-split):<") != std::string::npos);
    CHECK(r.out.find(">3 of 3 values<") != std::string::npos);
    const auto apart = run_leanattn("sweep --model llama-3-8b --vary ctx --values 1k,64k --no-progress --format svg");
    CHECK(elements(apart.out, "curve").size() == 2);
    CHECK(count(apart.out, "class=\"legend-coincide\"") == 0);
    CHECK(count(apart.out, "class=\"legend-auto\"") == 0);
}

TEST_CASE("sweep --strategy auto names every pair of curves that coincide, auto's with a baseline's too") {
    // Llama-3-8B B=8: at 1k and 2k auto runs no-split's plan, so its curve lies on LA/FA2's there.
    const auto r = run_leanattn("sweep --model llama-3-8b --batch 8 --vary ctx --values 1k,2k,64k --kernel leanattn-h100 --strategy auto --no-progress --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    CHECK(count(r.out, "class=\"legend-coincide\"") == 1);
    CHECK(r.out.find(">LA / auto's plan:<") != std::string::npos);
}

TEST_CASE("sweep --strategy auto draws auto's plan over stream-k's as a third curve, each marker naming the plan") {
    const auto r = run_leanattn("sweep --strategy auto --heads 32 --kv-heads 8 --vary ctx --values 1k,4k,64k --no-progress --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(markup_problem(r.out).empty());
    const auto curves = elements(r.out, "curve");
    REQUIRE(curves.size() == 3);
    CHECK(curves[2].attr("data-baseline") == "auto");
    CHECK(curves[2].num("stroke-width") < curves[1].num("stroke-width"));  // thinnest, drawn last: the others show through
    const auto markers = elements(r.out, "marker");
    REQUIRE(markers.size() == 3 * 3 + 3);  // every value on the three curves, and one in each legend entry
    CHECK(markers[6].tag.rfind("<path", 0) == 0);
    CHECK(markers[6].attr("fill") == "none");
    // Each tooltip names the plan: "LA / auto's plan at 4096: 0.90x (stream-k, grid 64)".
    CHECK(count(r.out, "<title>LA / auto's plan at ") == 3);
    CHECK(count(r.out, "x (stream-k, grid ") + count(r.out, "x (fixed-split, ") + count(r.out, "x (no-split") == 3);
    CHECK(count(r.out, "class=\"legend-auto\"") == 1);
}

// The schedule pictures, read back as markup: Figure 1 drawn with one rect per segment in its output's color
// and at its place in idealised time, its two host merges and the arrows feeding them, lanes and waves where
// they belong, fixed-split's reduce launch and empty CTAs, a self-contained HTML page, and big plans that stay
// small. The pictures were also looked at in a browser; these checks guard what was seen.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"
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
        CHECK(e.attr("fill") == leanattn::app::palette_color(std::stoi(e.attr("data-output"))));
    }
    CHECK(count(r.out, "data-output=\"0\"") == 3);
    CHECK(count(r.out, "data-output=\"1\"") == 3);
    CHECK(leanattn::app::palette_color(0) != leanattn::app::palette_color(1));
    CHECK(count(r.out, "class=\"legend-output\"") == 2);
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
        CHECK(count(r.out, "class=\"legend-output\"") == 12);  // the palette once, then a count
        CHECK(count(r.out, "288 outputs: colors repeat") == 1);
        CHECK(count(r.out, "class=\"arrow\"") == 0);
    }
    const auto html = run_leanattn(h100_big + " --format html");
    CHECK(count(html.out, "<tr>") == 65);  // the table is capped
    CHECK(html.out.find("224 more outputs") != std::string::npos);
}

TEST_CASE("an unknown picture format is refused with exit 2") {
    const auto r = run_leanattn(figure1 + " --format png");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--format") != std::string::npos);
}

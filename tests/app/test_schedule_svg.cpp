// The schedule pictures: Figure 1 drawn with one rect per segment, its two host reductions and a legend;
// a self-contained HTML page; big plans stay small.
#include <catch2/catch.hpp>

#include "run_command.hpp"

using leanattn::testing::run_leanattn;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

const std::string figure1 = "schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280";

}  // namespace

TEST_CASE("the Figure 1 SVG has one rect per segment, colored by output, two reductions and a legend entry per output") {
    const auto r = run_leanattn(figure1 + " --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("<svg", 0) == 0);
    CHECK(r.out.find("</svg>") != std::string::npos);
    CHECK(count(r.out, "class=\"seg\"") == 6);  // CTA2 holds two segments
    CHECK(count(r.out, "data-output=\"0\"") == 3);
    CHECK(count(r.out, "data-output=\"1\"") == 3);
    CHECK(count(r.out, "data-cta=\"2\"") == 2);
    CHECK(count(r.out, "class=\"reduce\"") == 2);  // hosts CTA0 and CTA2
    CHECK(count(r.out, "class=\"legend-output\"") == 2);
    CHECK(count(r.out, "h1[0,1)") >= 1);
}

TEST_CASE("fixed-split draws its second launch and no in-launch reductions") {
    const auto r = run_leanattn(figure1 + " --strategy fixed-split --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(count(r.out, "class=\"reduce-launch\"") == 1);
    CHECK(count(r.out, "class=\"reduce\"") == 0);
    CHECK(count(r.out, "class=\"seg\"") == 10);
}

TEST_CASE("the HTML page is self-contained and holds the picture") {
    const auto r = run_leanattn(figure1 + " --format html");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(count(r.out, "<svg") == 1);
    CHECK(count(r.out, "http") == count(r.out, "http://www.w3.org/2000/svg"));  // no external resources
    CHECK(count(r.out, "<tr>") == 3);  // header + 2 outputs
}

TEST_CASE("a big plan renders under a megabyte") {
    const auto r = run_leanattn("schedule --batch 6 --heads 48 --head-dim 64 --ctx 65536 --format svg");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.size() < 1000000);
    CHECK(count(r.out, "class=\"seg\"") >= 264);
}

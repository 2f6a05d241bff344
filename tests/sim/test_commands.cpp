// `leanattn simulate` and `leanattn sweep` as other tools read them: the JSON keys other tools read, the
// pictures, the CSV, and bad input refused with InputError (exit 2 at the command line).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cmd_simulate.hpp"
#include "cmd_sweep.hpp"
#include "core/input_error.hpp"
#include "data_catalog.hpp"
#include "sim/sweep.hpp"

using namespace leanattn;
using namespace leanattn::app;
using Catch::Detail::Approx;

namespace {

ResolvedProblem figure8(const std::string& format) {
    ResolvedProblem in;
    in.device = load_device("h100-sxm");
    in.problem.batch = 6;
    in.problem.q_heads = in.problem.kv_heads = 48;
    in.problem.head_dim = 64;
    in.problem.tile = 256;
    in.problem.ctx.assign(6, 16384);
    in.strategies = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};
    in.format = format;
    return in;
}

std::string simulate(const std::string& format) {
    SimulateOptions options;
    options.input = figure8(format);
    std::ostringstream out;
    REQUIRE(run_simulate(options, out) == 0);
    return out.str();
}

}  // namespace

TEST_CASE("simulate --format json has the keys other tools read, one result per strategy") {
    const auto j = nlohmann::json::parse(simulate("json"));
    REQUIRE(j["results"].size() == 3);
    for (const auto& r : j["results"]) {
        for (const char* key : {"strategy", "grid", "launches", "makespan_us", "occupancy", "idle_sm_fraction", "waves", "reduction_share",
                                "speedup_vs_fixed_split"}) {
            CAPTURE(key);
            CHECK(r.contains(key));
        }
        CHECK(r["occupancy"].get<double>() > 0.0);
        CHECK(r["occupancy"].get<double>() <= 1.0);
    }
    CHECK(j["results"][0]["strategy"] == "stream-k");
    CHECK(j["results"][1]["speedup_vs_fixed_split"].get<double>() == 1.0);
    // Figure 8's 288 outputs leave fixed-split (1 split, FA2's heuristic) a second wave of 24 CTAs: stream-k wins.
    CHECK(j["results"][0]["speedup_vs_fixed_split"].get<double>() > 1.0);
}

TEST_CASE("simulate draws three panels on one time axis, and the HTML page embeds the table and the SVG") {
    const std::string svg = simulate("svg");
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK_THAT(svg, Catch::Contains("stream-k: makespan") && Catch::Contains("fixed-split: makespan") && Catch::Contains("no-split: makespan"));
    const std::string html = simulate("html");
    CHECK_THAT(html, Catch::Contains("<!doctype html>") && Catch::Contains("<svg") && Catch::Contains("makespan_us"));
    const std::string text = simulate("text");
    CHECK_THAT(text, Catch::Contains("strategy") && Catch::Contains("occupancy") && Catch::Contains("vs_fixed"));
}

TEST_CASE("sweep --vary ctx writes one CSV row per value with both speedups") {
    SweepOptions options;
    options.input = figure8("csv");
    options.vary = "ctx";
    options.values = parse_sweep_values("4k,16k,64k");
    REQUIRE(options.values == std::vector<std::int64_t>{4096, 16384, 65536});
    options.progress = false;
    std::ostringstream out;
    REQUIRE(run_sweep(options, out) == 0);
    std::istringstream lines(out.str());
    std::string header, line;
    std::getline(lines, header);
    CHECK_THAT(header, Catch::StartsWith("vary,value,") && Catch::EndsWith("speedup_la_over_fd,speedup_la_over_fa2"));
    int rows = 0;
    while (std::getline(lines, line)) {
        ++rows;
        CHECK_THAT(line, Catch::StartsWith("ctx,"));
    }
    CHECK(rows == 3);
}

TEST_CASE("a ragged sweep keeps the longest request and sets mean/max to the value") {
    Problem base = figure8("csv").problem;
    base.batch = 4;
    base.ctx.assign(4, 40000);
    const Problem p = sim::vary_problem(base, "ragged", 50);
    CHECK(p.ctx[0] == 40000);
    CHECK(p.ctx[3] == 13333);  // (0.5 · 4 − 1) · 40,000 / 3, rounded
    CHECK(static_cast<double>(p.total_ctx()) / 4.0 / 40000.0 == Approx(0.5).epsilon(1e-4));
    CHECK_THROWS_AS(sim::vary_problem(base, "ragged", 25), InputError);  // 1/batch: the others would have no context
    CHECK_THROWS_AS(sim::vary_problem(base, "ragged", 101), InputError);
    CHECK_THROWS_AS(sim::vary_problem(base, "depth", 4), InputError);
    CHECK_THROWS_AS(sim::vary_problem(base, "heads", 0), InputError);
    CHECK_THROWS_AS(parse_sweep_values("4k,,8k"), InputError);
    CHECK_THROWS_AS(dtype_flag("--dtype", "int3", {DType::fp16, DType::bf16, DType::fp32}), InputError);
}

// Kernel models on the command line: `leanattn calibrate` (check, predict, its refusals), `simulate --kernel`
// and `simulate --trace`, `--strategy auto`, `cuda bench --shapes` without a GPU, and the kernel file reader.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "apps/auto_strategy.hpp"
#include "apps/calibration_report.hpp"
#include "apps/data_catalog.hpp"
#include "apps/kernel_file.hpp"
#include "apps/measured_runs.hpp"
#include "core/input_error.hpp"
#include "core/saturating.hpp"
#include "run_command.hpp"

using leanattn::testing::run_leanattn;
using leanattn::testing::slurp;
using nlohmann::json;

namespace {

const std::string source = LEANATTN_SOURCE_DIR;
const std::string raw = source + "/bench/results/raw/gpu-2026-11-26-calibration-v22-h100/cal-device";  // the shipped fit's kernel (v22)
const std::string heldout1 = raw + "/heldout-1.jsonl";
const std::string heldout2 = raw + "/heldout-2.jsonl";
const std::string trace = raw + "/trace-llama-b1-16k.json";

// A file under /tmp named for this process, removed when the test ends.
struct TempFile {
    std::string path;
    explicit TempFile(const std::string& name, const std::string& text = "") : path("/tmp/leanattn-calib-" + std::to_string(::getpid()) + "-" + name) {
        std::ofstream(path) << text;
    }
    ~TempFile() { std::remove(path.c_str()); }
};

std::vector<json> json_lines(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) out.push_back(json::parse(line));
    }
    return out;
}

std::string kernel_text() {
    const leanattn::DeviceSpec h100 = leanattn::app::load_device("h100-sxm");
    return leanattn::app::kernel_to_json(leanattn::app::load_kernel("leanattn-h100", h100), "a note").dump(2);
}

// The message kernel_from_text refuses `text` with ("" when it reads).
std::string refusal(const std::string& text) {
    try {
        leanattn::app::kernel_from_text(text, "k.json");
    } catch (const leanattn::InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("calibrate --kernel leanattn-h100 --check a held-out sweep: every replay runs in the GPU's waves, and the median error is under 10%") {
    const auto r = run_leanattn("calibrate --kernel leanattn-h100 --check " + heldout1 + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    REQUIRE(j.contains("check"));
    CHECK_FALSE(j.contains("fit"));
    const json& c = j["check"];
    CHECK(c["problems"] == 100);  // heldout-1.jsonl: 100 lines of 3 strategies
    CHECK(c["runs"] == 300);
    CHECK(c["waves"]["exact"] == c["runs"]);  // the records give the GPU's occupancy: 132 SMs x 1 CTA
    CHECK(c["waves_wrong"].empty());
    CHECK(c["error"]["runs"] == 300);
    CHECK(c["error"]["median"].get<double>() < 0.10);
    CHECK(c["error"]["median"].get<double>() <= c["error"]["p95"].get<double>());
    CHECK(c["error"]["p95"].get<double>() <= c["error"]["worst"].get<double>());
    // The model beats a plain roofline on the small problems, where fixed costs dominate.
    CHECK(c["under_64mb"]["model"]["median"].get<double>() < c["under_64mb"]["roofline"]["median"].get<double>());
    CHECK(c["fastest_right"].get<int>() <= c["fastest_decided"].get<int>());
    CHECK(c["auto"]["problems"] == 100);
    CHECK(c["auto"]["within_3pct"].get<int>() <= 100);
    CHECK(c["auto"]["worst_loss"].get<double>() >= 0.0);
    CHECK(c["worst"].size() == 8);
    // The problems whose fastest strategy the model got wrong, one line each, as many as it missed.
    CHECK(c["fastest_wrong"].size() == c["fastest_decided"].get<std::size_t>() - c["fastest_right"].get<std::size_t>());
    // The error over each strategy's runs: 100 each, and the three together are the whole sweep's runs.
    for (const char* s : {"stream-k", "fixed-split", "no-split"}) {
        CHECK(c["by_strategy"][s]["runs"] == 100);
        CHECK(c["by_strategy"][s]["median"].get<double>() <= c["by_strategy"][s]["worst"].get<double>());
    }

    // --runs: each checked run on a line of its own, measured beside predicted, the same runs the summary counts.
    const TempFile runs("checked-runs.jsonl");
    const auto listed = run_leanattn("calibrate --kernel leanattn-h100 --check " + heldout1 + " --runs " + runs.path + " --format json");
    REQUIRE(listed.exit_code == 0);
    CHECK(json::parse(listed.out)["check"]["error"] == c["error"]);
    std::istringstream lines(slurp(runs.path));
    std::size_t n = 0, beyond_median = 0;
    for (std::string line; std::getline(lines, line); ++n) {
        const json run = json::parse(line);
        CHECK(run["error"].get<double>() == Approx(run["predicted_us"].get<double>() / run["measured_us"].get<double>() - 1.0));
        CHECK(run["grid"].get<int>() > 0);
        CHECK(run["block_rows"].get<int>() <= 16);  // the sweep's tiles hold 16 rows at most
        CHECK(run["rows_per_kv_head"].get<int>() >= run["block_rows"].get<int>());
        beyond_median += std::abs(run["error"].get<double>()) > c["error"]["median"].get<double>() ? 1 : 0;
    }
    CHECK(n == 300);
    CHECK(beyond_median >= 140);  // half the runs, give or take the median's own
    CHECK(beyond_median <= 150);

    // Two rounds of one sweep: the same runs, named as rounds; text by default.
    const auto two = run_leanattn("calibrate --kernel leanattn-h100 --check " + heldout1 + " --check " + heldout2);
    REQUIRE(two.exit_code == 0);
    CHECK_THAT(two.out, Catch::Contains("2 rounds") && Catch::Contains("100 problems, 300 runs") && Catch::Contains("waves exact: 300 of 300") &&
                            Catch::Contains("by strategy:  stream-k median"));
}

TEST_CASE("calibrate --check replays a fixed-split run at the split count it ran (the record's \"splits\")") {
    // Falcon-7B at one request of 16k tokens, timed at one wave's 26 splits (130 CTAs), not the heuristic's 64.
    const std::string record =
        R"({"device":"NVIDIA H100 80GB HBM3","dtype":"fp16","copy_gbps":2986.6,"problem":{"batch":1,"q_heads":71,"kv_heads":1,"head_dim":64,"q_len":1,)"
        R"("ctx":[16384],"tile":256,"tile_rows":16},"results":[{"strategy":"fixed-split","grid":130,"launches":2,"splits":26,"median_us":14.688}],)"
        R"("flags":"--model falcon-7b --ctx 16384 --strategy fixed-split --splits 26"})";
    const TempFile ran("one-wave.jsonl", record + "\n");
    const auto r = run_leanattn("calibrate --kernel leanattn-h100 --check " + ran.path + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json c = json::parse(r.out)["check"];
    CHECK(c["runs"] == 1);
    CHECK(c["waves"]["not_recorded"] == 1);  // 26 splits × 5 row blocks, the GPU's grid; the record gives no occupancy
    CHECK(c["waves"]["differ"] == 0);
}

TEST_CASE("waves exact fails where the GPU's occupancy is not the kernel model's, names the run, and refuses an occupancy no GPU has") {
    // Llama-2-7B B=8 at 4k, no-split on 256 CTAs: two waves of the model's 132 (one CTA per SM); a GPU that held two CTAs
    // per SM ran it in one.
    const std::string problem =
        R"("problem":{"batch":8,"q_heads":32,"kv_heads":32,"head_dim":128,"q_len":1,"ctx":[4096,4096,4096,4096,4096,4096,4096,4096],"tile":128,"tile_rows":16})";
    const auto record = [&](int ctas_per_sm, const std::string& flags) {
        return R"({"device":"NVIDIA H100 80GB HBM3","gpu":{"name":"NVIDIA H100 80GB HBM3","sms":132,"ctas_per_sm":)" + std::to_string(ctas_per_sm) +
               R"(},"dtype":"fp16","copy_gbps":2986.6,)" + problem + R"(,"results":[{"strategy":"no-split","grid":256,"launches":1,"median_us":100.0}],"flags":")" +
               flags + "\"}\n";
    };
    const TempFile ran("waves.jsonl", record(1, "one per SM") + record(2, "two per SM"));
    const auto r = run_leanattn("calibrate --kernel leanattn-h100 --check " + ran.path + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json c = json::parse(r.out)["check"];
    CHECK(c["waves"]["exact"] == 1);
    CHECK(c["waves"]["differ"] == 1);
    REQUIRE(c["waves_wrong"].size() == 1);
    CHECK_THAT(c["waves_wrong"][0].get<std::string>(), Catch::Contains("256 CTAs on 264 slots, the replay 256 on 132") && Catch::Contains("two per SM"));
    const auto text = run_leanattn("calibrate --kernel leanattn-h100 --check " + ran.path);
    CHECK_THAT(text.out, Catch::Contains("waves exact: 1 of 2 runs") && Catch::Contains("waves differ:"));

    const TempFile none("no-sms.jsonl", record(0, "zero"));
    const auto refused = run_leanattn("calibrate --kernel leanattn-h100 --check " + none.path);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("no-sms.jsonl:1") && Catch::Contains("gpu ctas_per_sm 0"));
}

TEST_CASE("a record's \"narrow_streams\" reaches the replay: read with half the warps where cuda bench says so, else with all") {
    // Llama-3-8B B=8 at 4k, no-split on 64 CTAs: once as v31's kernel ran it (half the warps), once as a record of before.
    const std::string problem =
        R"("problem":{"batch":8,"q_heads":32,"kv_heads":8,"head_dim":128,"q_len":1,"ctx":[4096,4096,4096,4096,4096,4096,4096,4096],"tile":128,"tile_rows":16})";
    const std::string narrow = R"({"device":"NVIDIA H100 80GB HBM3","dtype":"fp16",)" + problem +
                               R"(,"results":[{"strategy":"no-split","grid":64,"launches":1,"splits":1,"snap":0,"narrow_streams":true,"median_us":50.7}],"flags":"a"})";
    const std::string before = R"({"device":"NVIDIA H100 80GB HBM3","dtype":"fp16",)" + problem +
                               R"(,"results":[{"strategy":"no-split","grid":64,"launches":1,"splits":1,"median_us":55.8}],"flags":"b"})";
    const TempFile ran("narrow.jsonl", narrow + "\n" + before + "\n");
    const leanattn::app::MeasuredSweep sweep = leanattn::app::read_measured({ran.path});
    REQUIRE(sweep.runs.size() == 2);
    CHECK(sweep.runs[0].narrow_streams);
    CHECK_FALSE(sweep.runs[1].narrow_streams);
}

TEST_CASE("the check's fastest strategy: runs of one plan (no-split's, under stream-k or fixed-split) are one choice, their gap noise") {
    using namespace leanattn;
    const DeviceSpec device = app::load_device("h100-sxm");
    const sim::KernelModel kernel = app::load_kernel("leanattn-h100", device);
    Problem p;  // 32 outputs of 2 LeanTiles on 132 SMs: stream-k's aligned plan holds one whole output per CTA
    p.batch = 16;
    p.q_heads = 14;
    p.kv_heads = 2;
    p.head_dim = 128;
    p.tile = default_tile(p.head_dim);
    p.ctx.assign(16, 200);
    std::vector<sim::MeasuredRun> runs;
    for (const auto& [strategy, us] : {std::pair{Strategy::stream_k, 14.5}, {Strategy::fixed_split, 19.6}, {Strategy::no_split, 14.8}}) {
        sim::MeasuredRun r;
        r.label = "one problem";
        r.problem = p;
        r.strategy = strategy;
        r.measured_us = us;
        runs.push_back(r);
    }
    const sim::PlannedRuns planned = sim::plan_runs(runs, device, kernel);
    REQUIRE(sim::runs_as_no_split(planned.plans[0]));  // the premise: stream-k's plan is no-split's
    REQUIRE_FALSE(sim::runs_as_no_split(planned.plans[1]));
    // Predicted alike, the tie goes to no-split, which the GPU timed 2% behind the same plan run as stream-k: the
    // same choice, so right; the gap to fixed-split decides the problem.
    const auto check = [&](double fixed_split_us) {
        return app::check_predictions("t", planned, {15.0, fixed_split_us, 15.0}, kernel, device, 3000.0);
    };
    const app::CalibrationCheck right = check(20.0);
    CHECK(right.fastest_decided == 1);
    CHECK(right.fastest_right == 1);
    CHECK(right.fastest_wrong.empty());
    CHECK(right.auto_picks_decided == 1);
    CHECK(right.auto_picks_fastest == 1);  // stream-k first, no-split takes its own plan: the fastest plan
    const app::CalibrationCheck wrong = check(14.0);  // fixed-split predicted fastest
    CHECK(wrong.fastest_decided == 1);
    CHECK(wrong.fastest_right == 0);
    // auto's margins: fixed-split 6.7% ahead beats its 5%, so auto picks it too.
    CHECK(wrong.auto_picks_fastest == 0);
    // Predicted 4% ahead, under fixed-split's 5%: the model's fastest is wrong, auto's pick (stream-k's plan) right.
    const app::CalibrationCheck margin = check(15.0 * 0.96);
    CHECK(margin.fastest_right == 0);
    CHECK(margin.auto_picks_fastest == 1);
    // Named in the report: what ran fastest, by how much, and what the model put first instead.
    REQUIRE(wrong.fastest_wrong.size() == 1);
    CHECK_THAT(wrong.fastest_wrong[0], Catch::StartsWith("stream-k ran 14.5 us, 35.2% ahead of the runner-up; predicted first: fixed-split (-6.7% against stream-k)"));
    // Two plans within the noise the same plan shows (2%): not decided.
    runs[1].measured_us = 14.7;
    const sim::PlannedRuns close = sim::plan_runs(runs, device, kernel);
    CHECK(app::check_predictions("t", close, {15.0, 20.0, 15.0}, kernel, device, 3000.0).fastest_decided == 0);
}

TEST_CASE("an input kept xz-compressed reads as the file it holds: FILE.xz by its own name, or FILE where only FILE.xz exists") {
    if (std::system("xz --version >/dev/null 2>&1") != 0) {
        WARN("skipped: the xz program is not installed (Debian: apt-get install xz-utils)");
        return;
    }
    const TempFile compressed("heldout.jsonl.xz");
    REQUIRE(std::system(("xz -c " + heldout1 + " > " + compressed.path).c_str()) == 0);
    const std::string plain = compressed.path.substr(0, compressed.path.size() - 3);  // no such file: only its .xz exists
    // The report, less its first line (which names the file) and auto's host time (which varies).
    const auto check = [](const std::string& file) { return run_leanattn("calibrate --kernel leanattn-h100 --check " + file); };
    const auto report = [](const std::string& out) {
        std::istringstream lines(out.substr(std::min(out.size(), out.find('\n'))));
        std::string kept;
        for (std::string line; std::getline(lines, line);) {
            if (line.find("host time") == std::string::npos) kept += line + "\n";
        }
        return kept;
    };
    const auto expected = check(heldout1);
    REQUIRE(expected.exit_code == 0);
    REQUIRE(report(expected.out).size() > 100);
    for (const std::string& file : {compressed.path, plain}) {
        CAPTURE(file);
        const auto r = check(file);
        CHECK(r.exit_code == 0);
        CHECK(report(r.out) == report(expected.out));
    }
    // A plain file beside its .xz is read as it is; a broken .xz is refused, named as given.
    const TempFile beside("heldout.jsonl", "not json\n");  // at `plain`
    CHECK(report(check(plain).out) != report(expected.out));
    const TempFile broken("broken.jsonl.xz", "not xz");
    const auto refused = check(broken.path.substr(0, broken.path.size() - 3));
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("is not a valid .xz file") != std::string::npos);
}

TEST_CASE("calibrate --predict writes one JSON line per shape with each strategy's predicted time, the simulator's under the kernel") {
    const TempFile shapes("shapes.txt",
                          "# two problems\n"
                          "--batch 2 --heads 32 --kv-heads 8 --head-dim 128 --ctx 4096 --dtype fp16\n"
                          "\n"
                          "--model llama-3-8b --batch 3 --ctx 1000,2000,30000 --dtype bf16   # ragged\n");
    const TempFile out("predicted.jsonl");
    const auto r = run_leanattn("calibrate --kernel leanattn-h100 --predict " + shapes.path + " -o " + out.path);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<json> lines = json_lines(slurp(out.path));
    REQUIRE(lines.size() == 2);
    for (const json& l : lines) {
        CHECK(l["kernel"] == "leanattn-h100");
        CHECK(l["device"] == "h100-sxm");
        REQUIRE(l["results"].size() == 3);
        std::set<std::string> strategies;
        for (const json& x : l["results"]) {
            strategies.insert(x["strategy"].get<std::string>());
            CHECK(x["predicted_us"].get<double>() > 0.0);
            CHECK(x["grid"].get<int>() > 0);
        }
        CHECK(strategies == std::set<std::string>{"stream-k", "fixed-split", "no-split"});
    }
    CHECK_THAT(lines[1]["flags"].get<std::string>(), Catch::StartsWith("--model llama-3-8b"));
    // The first line's predictions are what `simulate --kernel` says of the same problem.
    const auto sim = run_leanattn("simulate --kernel leanattn-h100 --batch 2 --heads 32 --kv-heads 8 --head-dim 128 --ctx 4096 --format json");
    REQUIRE(sim.exit_code == 0);
    const json s = json::parse(sim.out);
    REQUIRE(s["results"].size() == 3);
    for (const json& x : lines[0]["results"]) {
        for (const json& y : s["results"]) {
            if (y["strategy"] != x["strategy"]) continue;
            CHECK(y["grid"] == x["grid"]);
            CHECK(y["makespan_us"].get<double>() == Approx(x["predicted_us"].get<double>()).epsilon(1e-9));
        }
    }
    // Under the paper's kernel (the device file's timing) the predictions differ.
    const auto paper = run_leanattn("calibrate --kernel paper --predict " + shapes.path);
    REQUIRE(paper.exit_code == 0);
    const std::vector<json> p = json_lines(paper.out);
    REQUIRE(p.size() == 2);
    CHECK(p[0]["kernel"] == "paper");
    CHECK(p[0]["results"][0]["predicted_us"] != lines[0]["results"][0]["predicted_us"]);
}

// heldout-1.jsonl's first line with one edit (`edit` changes its JSON), as a sweep of its own.
TempFile edited_line(const std::string& name, const std::function<void(json&)>& edit) {
    const std::string all = slurp(heldout1);
    json j = json::parse(all.substr(0, all.find('\n')));
    edit(j);
    return TempFile(name, j.dump() + "\n");
}

TEST_CASE("calibrate --predict plays each line as simulate --kernel does, and names a refused line") {
    const TempFile shapes("predict-own.txt", "--batch 4 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8192 --ctas-per-sm 2\n"
                                             "--batch 2 --heads 8 --ctx 3000 --strategy auto\n"
                                             "--batch 4 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8192 --ctas-per-sm=2\n"
                                             "--ctx 16384 --heads 8 --kv-heads 1 --dtype fp32 --strategy auto\n");
    const auto r = run_leanattn("calibrate --kernel leanattn-h100 --predict " + shapes.path);
    REQUIRE(r.exit_code == 0);
    const std::vector<json> lines = json_lines(r.out);
    REQUIRE(lines.size() == 4);
    for (const json& line : lines) {
        CAPTURE(line["flags"]);
        const json sim = json::parse(run_leanattn("simulate --kernel leanattn-h100 --format json " + line["flags"].get<std::string>()).out);
        REQUIRE(sim["results"].size() == line["results"].size());
        for (std::size_t i = 0; i < sim["results"].size(); ++i) {
            CHECK(line["results"][i]["grid"] == sim["results"][i]["grid"]);
            CHECK(line["results"][i]["predicted_us"].get<double>() == Approx(sim["results"][i]["makespan_us"].get<double>()).epsilon(1e-12));
        }
    }
    const TempFile with_device("predict-device.txt", "--ctx 100\n--ctx 200 --device a100-80gb\n");
    const auto refused = run_leanattn("calibrate --kernel leanattn-h100 --predict " + with_device.path);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("problem line 2") && Catch::Contains("--device"));
}

TEST_CASE("calibrate says how many error records of a sweep it skipped, and when the runs are another GPU's") {
    const std::string all = slurp(heldout1);
    const TempFile with_error("with-error.jsonl", all.substr(0, all.find('\n') + 1) + R"({"flags":"--ctx 5","error":"no GPU"})" + "\n");
    const auto text = run_leanattn("calibrate --kernel leanattn-h100 --check " + with_error.path);
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("1 error record of runs cuda bench refused: skipped"));
    const auto j = run_leanattn("calibrate --kernel leanattn-h100 --check " + with_error.path + " --format json");
    CHECK(json::parse(j.out)["check"]["skipped_error_records"] == 1);
    // Runs of an H100 replayed on another GPU's file: said, and not where the file describes the GPU.
    CHECK_THAT(run_leanattn("calibrate --kernel leanattn-h100 --device a100-80gb --check " + heldout1).out,
               Catch::Contains("which a100-80gb does not describe"));
    CHECK_THAT(text.out, !Catch::Contains("does not describe"));
}

TEST_CASE("calibrate refuses what it cannot do with exit 2 and an error line") {
    const TempFile shapes("refuse-shapes.txt", "--batch 1 --heads 8 --ctx 1000\n");
    const TempFile huge_shape("huge-shape.txt", "--heads 67108864 --kv-heads 67108864 --ctx 128\n");
    // The command's own flags on a line: --help's text went into the predictions, -o and --format were dropped.
    const TempFile help_line("help-line.txt", "--batch 1 --help\n");
    const TempFile output_line("output-line.txt", "--batch 1 -o /tmp/leanattn-never-written.txt\n");
    const TempFile format_line("format-line.txt", "--batch 1 --format json\n");
    // Lines estimated at ~17 s each, within the work limit one by one but not 30 of them (each was weighed alone: 8 minutes).
    std::string heavy_lines;
    for (int i = 0; i < 30; ++i) heavy_lines += "--batch 65536 --heads 64 --kv-heads 64 --head-dim 128 --ctx 64\n";
    const TempFile heavy("heavy-lines.txt", heavy_lines);
    // Records no `cuda bench` writes: a dtype it does not run, a time no launch takes, no run at all, a shape whose
    // replay would take more memory than the machine has (it ran out of memory, or aborted inside the replay's threads).
    const TempFile int8 = edited_line("int8.jsonl", [](json& j) { j["dtype"] = "int8"; });
    const TempFile tiny_time = edited_line("tiny-time.jsonl", [](json& j) { j["results"][0]["median_us"] = 5e-324; });
    const TempFile no_runs = edited_line("no-runs.jsonl", [](json& j) { j["results"] = json::array(); });
    const TempFile bad_splits = edited_line("bad-splits.jsonl", [](json& j) { j["results"][1]["splits"] = -3; });
    // Numbers that are no CTA count: 2.7 was read as 2, 1e30 as -2^63.
    const TempFile fractional_grid = edited_line("fractional-grid.jsonl", [](json& j) { j["results"][0]["grid"] = 2.7; });
    const TempFile vast_grid = edited_line("vast-grid.jsonl", [](json& j) { j["results"][0]["grid"] = 1e30; });
    const TempFile fractional_ctx = edited_line("fractional-ctx.jsonl", [](json& j) { j["problem"]["ctx"][0] = 1000.5; });
    const TempFile bell = edited_line("bell.jsonl", [](json& j) { j["flags"] = std::string("--batch 1\a"); });  // printed as it is
    // A record of a huge fixed-split run: its replay at the recorded split count is weighed (it ran out of memory).
    const TempFile big_splits = edited_line("big-splits.jsonl", [](json& j) {
        j["problem"]["batch"] = 1, j["problem"]["ctx"] = {67108864}, j["problem"]["q_heads"] = j["problem"]["kv_heads"] = 64;
        for (json& r : j["results"]) {
            if (r["strategy"] == "fixed-split") r["splits"] = 524288;
        }
    });
    // A stream-k record whose grid no plan can take: named as the record's, not as a --grid flag calibrate has not.
    const TempFile big_grid = edited_line("big-grid.jsonl", [](json& j) {
        j["problem"]["batch"] = 1, j["problem"]["ctx"] = {1048576};  // LeanTiles for far more CTAs than reside
        for (json& r : j["results"]) {
            if (r["strategy"] == "stream-k") r["grid"] = 16777216, r["snap"] = 0;  // the paper's split plan: hosts would wait
        }
    });
    const TempFile huge = edited_line("huge.jsonl", [](json& j) {
        j["problem"]["q_heads"] = j["problem"]["kv_heads"] = 67108864;
        j["problem"]["ctx"] = {128};
        j["problem"]["batch"] = 1;
    });
    // A kernel model whose streams would draw a vanishing share of the copy bandwidth: no event in a double's range.
    json starved = json::parse(slurp(source + "/data/kernels/leanattn-h100.json"));
    starved["bandwidth_over_copy"] = 1e-305;
    const TempFile starved_kernel("starved.json", starved.dump());
    const TempFile bad_kernel("bad-kernel.json", "{\"name\": \"broken\", \"launch_ns\": ");
    const TempFile not_jsonl("not.jsonl", "--batch 1 --heads 8 --ctx 1000\n");
    const TempFile empty("empty.jsonl", "\n\n");
    const TempFile no_problem("comments.txt", "# nothing here\n\n");
    const TempFile unwritten("unwritten.json");
    const std::string refused[] = {
        "calibrate --measured " + heldout1,                                      // no -o for the fitted model
        "calibrate --predict " + shapes.path,                                    // no --kernel
        "calibrate --kernel " + bad_kernel.path + " --check " + heldout1,        // a malformed kernel file
        "calibrate --kernel no-such-kernel --check " + heldout1,                 // an unknown kernel name
        "calibrate --kernel leanattn-h100 --check " + not_jsonl.path,            // not JSON lines
        "calibrate --kernel leanattn-h100 --check " + empty.path,                // no measured problem
        "calibrate --kernel leanattn-h100 --check /tmp/leanattn-no-such-file.jsonl",
        "calibrate --check " + heldout1,                                         // nothing to check
        "calibrate",                                                             // nothing at all
        "calibrate --kernel leanattn-h100 --predict " + shapes.path + " --check " + heldout1,  // predictions go alone
        "calibrate --kernel leanattn-h100 --predict " + no_problem.path,
        "calibrate --kernel leanattn-h100 --check " + heldout1 + " --format xml",
        "calibrate --kernel leanattn-h100 --check " + heldout1 + " -o " + unwritten.path,  // -o is a fit's or --predict's
        "calibrate --measured " + heldout1 + " -o " + unwritten.path + " --iterations -1",
        "calibrate --measured " + heldout1 + " -o " + unwritten.path + " --loss-scale -1",
        "calibrate --measured " + heldout1 + " -o " + unwritten.path + " --loss-scale 1e-160",  // it "deadlocked" (exit 3)
        "calibrate --measured " + heldout1 + " -o " + unwritten.path + " --loss-scale 1e-20",   // it fitted nothing, exit 0
        "calibrate --kernel leanattn-h100 --runs " + unwritten.path + " --predict " + shapes.path + " -o " + unwritten.path,  // --runs needs --check
        "calibrate --kernel leanattn-h100 --device paper-5sm --check " + heldout1,  // the simulator refuses the device inside the replay's threads
        "calibrate --kernel leanattn-h100 --check " + int8.path,
        "calibrate --kernel leanattn-h100 --check " + tiny_time.path,
        "calibrate --kernel leanattn-h100 --check " + no_runs.path,
        "calibrate --kernel leanattn-h100 --check " + bad_splits.path,
        "calibrate --kernel leanattn-h100 --check " + bell.path,
        "calibrate --kernel leanattn-h100 --check " + fractional_grid.path,
        "calibrate --kernel leanattn-h100 --check " + vast_grid.path,
        "calibrate --kernel leanattn-h100 --check " + fractional_ctx.path,
        "calibrate --kernel leanattn-h100 --check " + big_splits.path,
        "calibrate --kernel leanattn-h100 --check " + big_grid.path,
        "calibrate --kernel leanattn-h100 --check " + huge.path,
        "calibrate --kernel leanattn-h100 --predict " + huge_shape.path,
        "calibrate --kernel leanattn-h100 --predict " + help_line.path,
        "calibrate --kernel leanattn-h100 --predict " + output_line.path,
        "calibrate --kernel leanattn-h100 --predict " + format_line.path,
        "calibrate --kernel " + starved_kernel.path + " --check " + heldout1,
        "simulate --kernel " + starved_kernel.path,
        // A fit's flags outside a fit, --kernel inside one, --format for --predict's lines: they were dropped silently.
        "calibrate --kernel leanattn-h100 --check " + heldout1 + " --hold launch_ns",
        "calibrate --kernel leanattn-h100 --check " + heldout1 + " --iterations 3",
        "calibrate --kernel leanattn-h100 --predict " + shapes.path + " --name x",
        "calibrate --kernel leanattn-h100 --predict " + shapes.path + " --format json",
        "calibrate --measured " + heldout1 + " --kernel leanattn-h100 -o " + unwritten.path,
        // A file written over another of this run's: -o over --runs, --runs over a --check round, -o over the training data.
        "calibrate --measured " + heldout1 + " --iterations 0 --check " + heldout2 + " --runs " + unwritten.path + " -o " + unwritten.path,
        "calibrate --kernel leanattn-h100 --check " + heldout1 + " --check " + heldout2 + " --runs " + heldout2,
        "calibrate --measured " + heldout1 + " --iterations 0 -o " + heldout1,
        "calibrate --measured " + heldout1 + " --iterations 0 --hold launch_ns --hold launch_ns -o " + unwritten.path,
        "calibrate --measured " + heldout1 + " --iterations 0 --set ctas_per_sm=1.5 -o " + unwritten.path,
        "calibrate --measured " + heldout1 + " --iterations 0 --set launch_ns=-5 -o " + unwritten.path,
    };
    // The records weighed against memory (big-splits: about 12 GB) are refused by a limit of the test's, not by how much
    // memory this machine has free (24 GB machines ran the replay, for half a minute).
    ::setenv("LEANATTN_MAX_MEMORY", "4G", 1);
    for (const std::string& args : refused) {
        CAPTURE(args);
        const auto r = run_leanattn(args);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith("error:"));
        CHECK(r.out.empty());
    }
    ::unsetenv("LEANATTN_MAX_MEMORY");
    CHECK_THAT(run_leanattn("calibrate --kernel leanattn-h100 --predict " + heavy.path).err, Catch::Contains("(30 lines in all)") && Catch::Contains("work"));
    // Each file's refusal names the flag that gave it (--runs's was blamed on -o, --check's on "--measured/--check").
    CHECK_THAT(run_leanattn("calibrate --kernel leanattn-h100 --check " + heldout1 + " --runs /tmp").err, Catch::StartsWith("error: --runs /tmp (is a folder"));
    CHECK_THAT(run_leanattn("calibrate --kernel leanattn-h100 --check /tmp/leanattn-no-such-file.jsonl").err, Catch::StartsWith("error: --check /tmp/"));
    // An out-of-range value is written as a number, not its 300 digits.
    const auto vast = run_leanattn("calibrate --measured " + heldout1 + " --iterations 0 --set launch_ns=1e300 -o " + unwritten.path);
    CHECK(vast.exit_code == 2);
    CHECK_THAT(vast.err, Catch::Contains("1e+300") && !Catch::Contains("00000000000"));
    // A sweep kept only as FILE.xz is read for FILE: writing FILE.xz would replace it (it was replaced, exit 0).
    const std::string compressed = slurp(raw + "/row-blocks-b1.jsonl.xz");
    REQUIRE(compressed.size() > 1000);
    const TempFile kept("kept.jsonl.xz", compressed);
    const std::string read_as = kept.path.substr(0, kept.path.size() - 3);
    for (const std::string& args : {"calibrate --kernel leanattn-h100 --check " + read_as + " --runs " + kept.path,
                                    "calibrate --measured " + read_as + " --iterations 0 -o " + kept.path}) {
        CAPTURE(args);
        const auto r = run_leanattn(args);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("it would be written over"));
        CHECK(slurp(kept.path) == compressed);
    }
    // A record's own numbers are refused naming its file and line (they were named as flags: "--splits -3").
    CHECK_THAT(run_leanattn("calibrate --kernel leanattn-h100 --check " + bad_splits.path).err, Catch::Contains(bad_splits.path + ":1"));
    CHECK_THAT(run_leanattn("calibrate --kernel leanattn-h100 --check " + big_grid.path).err, Catch::Contains("the run of") && !Catch::Contains("error: --grid"));
    // Records without flags stay apart, each its own problem (they were merged into one).
    std::string unlabelled;
    for (const std::string& line : {slurp(heldout1).substr(0, slurp(heldout1).find('\n'))}) {
        json a = json::parse(line), b = a;
        a.erase("flags"), b.erase("flags");
        b["problem"]["batch"] = b["problem"]["batch"].get<int>() + 1;
        b["problem"]["ctx"].push_back(b["problem"]["ctx"][0]);
        unlabelled = a.dump() + "\n" + b.dump() + "\n";
    }
    const TempFile two("two-unlabelled.jsonl", unlabelled);
    const auto apart = run_leanattn("calibrate --kernel leanattn-h100 --check " + two.path + " --format json");
    REQUIRE(apart.exit_code == 0);
    CHECK(json::parse(apart.out)["check"]["problems"] == 2);
    // A shape measured twice in a row (two records of equal flags) stays two problems (they were one of six runs).
    const std::string first_record = slurp(heldout1).substr(0, slurp(heldout1).find('\n') + 1);
    const TempFile twice("twice.jsonl", first_record + first_record);
    const auto doubled = run_leanattn("calibrate --kernel leanattn-h100 --check " + twice.path + " --format json");
    REQUIRE(doubled.exit_code == 0);
    CHECK(json::parse(doubled.out)["check"]["problems"] == 2);
    // --set takes the names the fit prints, nested ones too, and whole numbers for whole-number fields.
    const TempFile nested("nested-set.json");
    REQUIRE(run_leanattn("calibrate --measured " + heldout1 + " --start leanattn-h100 --iterations 0 --set cta_ns_per_kb_by_path.d128=12.5 "
                         "--set ctas_per_sm=1 -o " + nested.path).exit_code == 0);
    CHECK(json::parse(slurp(nested.path))["cta_ns_per_kb_by_path"]["d128"] == 12.5);
    // A fit whose check is refused writes no fitted model over an existing -o file.
    const TempFile existing("existing.json", "kept\n");
    const auto late = run_leanattn("calibrate --measured " + heldout1 + " --iterations 0 --check " + int8.path + " -o " + existing.path);
    CHECK(late.exit_code == 2);
    CHECK(slurp(existing.path) == "kept\n");
    // Rounds of one sweep must hold the same problems.
    const TempFile first_line("first-line.jsonl", slurp(heldout1).substr(0, slurp(heldout1).find('\n') + 1));
    const auto rounds = run_leanattn("calibrate --kernel leanattn-h100 --check " + heldout1 + " --check " + first_line.path);
    CHECK(rounds.exit_code == 2);
    CHECK_THAT(rounds.err, Catch::Contains("rounds of one sweep must match"));
}

TEST_CASE("calibrate --measured fits a kernel model and writes it as a kernel file that reads back") {
    // A small fit: the first 6 problems of the held-out sweep, 2 iterations, from leanattn-h100.
    std::istringstream in(slurp(heldout1));
    std::string six;
    for (std::string line; six.size() < 1 << 20 && std::getline(in, line);) {
        six += line + "\n";
        if (std::count(six.begin(), six.end(), '\n') == 6) break;
    }
    const TempFile measured("six.jsonl", six);
    const TempFile fitted("fitted.json");
    const auto r = run_leanattn("calibrate --measured " + measured.path + " --start leanattn-h100 --iterations 2 --name small-fit --note 'test fit' -o " +
                                fitted.path + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json report = json::parse(r.out);
    CHECK(report["fit"]["iterations"].get<int>() <= 2);
    CHECK(report["fit"]["check"]["runs"] == 18);
    const json file = json::parse(slurp(fitted.path));
    CHECK(file["name"] == "small-fit");
    CHECK(file["fitted"] == "test fit");
    CHECK(file == report["fit"]["kernel"]);
    // It reads back: simulate under it.
    CHECK(run_leanattn("simulate --kernel " + fitted.path + " --model llama-3-8b --ctx 4096").exit_code == 0);

    // --hold keeps a field at the start's value while the others move; a field the fit does not move is refused.
    const json start = json::parse(slurp(source + "/data/kernels/leanattn-h100.json"));
    const TempFile held_fit("held.json");
    const auto held = run_leanattn("calibrate --measured " + measured.path + " --start leanattn-h100 --iterations 2 --hold sm_latency_spread --hold launch_ns -o " +
                                   held_fit.path + " --format json");
    INFO(held.err);
    REQUIRE(held.exit_code == 0);
    const json h = json::parse(slurp(held_fit.path));
    CHECK(h["sm_latency_spread"] == start["sm_latency_spread"]);
    CHECK(h["launch_ns"] == start["launch_ns"]);
    CHECK(file["launch_ns"] != start["launch_ns"]);  // the same fit without --hold moved it
    const auto refused = run_leanattn("calibrate --measured " + measured.path + " --hold tile_size -o " + held_fit.path);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("--hold tile_size"));

    // --fit moves only the fields it names, from a start that --set changed: a new term fitted alone.
    const TempFile alone_fit("alone.json");
    const auto alone = run_leanattn("calibrate --measured " + measured.path + " --start leanattn-h100 --iterations 2 --set launch_ns=5000 --fit launch_ns -o " +
                                    alone_fit.path);
    INFO(alone.err);
    REQUIRE(alone.exit_code == 0);
    CHECK_THAT(alone.err, Catch::Contains("fitting 1 fields"));
    json a = json::parse(slurp(alone_fit.path));
    CHECK(a["launch_ns"] != start["launch_ns"]);
    CHECK(a["launch_ns"] != 5000.0);  // moved from the value --set gave it
    json unmoved = start;  // every other field as the start has it
    for (const char* key : {"launch_ns", "name", "description", "fitted"}) a.erase(key), unmoved.erase(key);
    CHECK(a == unmoved);
    for (const auto& [flags, says] : std::vector<std::pair<std::string, std::string>>{
             {"--fit tile_size", "--fit tile_size"},
             {"--fit launch_ns --hold cta_setup_ns", "goes without --fit"},
             {"--set launch_ns", "KEY=VALUE"},
             {"--set no_such_key=1", "--set no_such_key=1"},
             {"--set launch_ns=fast", "finite number"},
             {"--set launch_ns=-1", "launch_ns"}}) {
        CAPTURE(flags);
        const auto bad = run_leanattn("calibrate --measured " + measured.path + " --start leanattn-h100 " + flags + " -o " + alone_fit.path);
        CHECK(bad.exit_code == 2);
        CHECK_THAT(bad.err, Catch::Contains(says));
    }
}

TEST_CASE("simulate --kernel --trace plays the trace's plans beside it: three strategies, the GPU's grids, as text, JSON and SVG") {
    const auto text = run_leanattn("simulate --kernel leanattn-h100 --trace " + trace);
    INFO(text.err);
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("stream-k") && Catch::Contains("fixed-split") && Catch::Contains("no-split"));
    CHECK_THAT(text.out, Catch::Contains("under kernel leanattn-h100"));

    const auto j = run_leanattn("simulate --kernel leanattn-h100 --trace " + trace + " --format json");
    REQUIRE(j.exit_code == 0);
    const json c = json::parse(j.out);
    CHECK(c["kernel"] == "leanattn-h100");
    CHECK(c["device"]["name"] == "h100-sxm");  // an object, as simulate's and schedule's JSON give it
    CHECK(c["device"]["ctas_per_sm"] == 1);   // the kernel's, on which the plans were remade
    REQUIRE(c["kernels"].size() == 3);
    const json t = json::parse(slurp(trace));
    for (std::size_t i = 0; i < 3; ++i) {
        const json& k = c["kernels"][i];
        CAPTURE(k["strategy"]);
        CHECK(k["strategy"] == t["kernels"][i]["strategy"]);
        CHECK(k["measured_grid"] == t["kernels"][i]["grid"]);
        CHECK(k["simulated_grid"] == k["measured_grid"]);  // the plan remade with the kernel's CTAs per SM is the GPU's
        CHECK(k["measured_makespan_us"].get<double>() == Approx(t["kernels"][i]["makespan"].get<double>() / 1e3));
        const double sim = k["simulated_makespan_us"].get<double>(), measured = k["measured_makespan_us"].get<double>();
        CHECK(k["makespan_error"].get<double>() == Approx(sim / measured - 1));
        CHECK(std::abs(sim / measured - 1) < 0.5);  // the model is fitted to this GPU: not off by half
        const json& e = k["cta_duration_error"];
        CHECK(e["median"].get<double>() <= e["p90"].get<double>());
        CHECK(e["p90"].get<double>() <= e["worst"].get<double>());
    }
    CHECK(c["kernels"][2]["wait_us"]["simulated"].get<double>() == 0.0);  // no-split waits for nobody

    const auto svg = run_leanattn("simulate --kernel leanattn-h100 --trace " + trace + " --format svg");
    REQUIRE(svg.exit_code == 0);
    CHECK_THAT(svg.out, Catch::StartsWith("<svg"));
    CHECK_THAT(svg.out, Catch::EndsWith("</svg>\n"));

    // Under the paper kernel the same trace compares too (a different model, a different simulated time).
    const auto paper = run_leanattn("simulate --trace " + trace + " --format json");
    REQUIRE(paper.exit_code == 0);
    CHECK(json::parse(paper.out)["kernel"] == "paper");
    // The trace names its problem and the plans that ran: a plan flag is refused, named, not silently dropped.
    for (const std::string flag : {"--strategy auto", "--tile-rows 8", "--plan-for capacity", "--ctas-per-sm 2", "--batch 2"}) {
        CAPTURE(flag);
        const auto refused = run_leanattn("simulate --trace " + trace + " " + flag);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains("leave out " + flag.substr(0, flag.find(' '))));
    }
}

TEST_CASE("simulate --trace replays the plan that ran: the trace's snap, or the snap whose walk matches, never another plan") {
    // A stream-k step timed with --stream-k-rule paper (snap 0) on an H100; the aligned rule picks snap 1 at that grid,
    // and the trace predates the "snap" key: the replay must find snap 0 from the CTAs' segments.
    const std::string paper_trace = source + "/bench/results/raw/gpu-2026-11-27-live-steps/trace-cl34b16-paper.json";
    json t = json::parse(slurp(paper_trace));
    REQUIRE_FALSE(t["kernels"][0].contains("snap"));
    const auto replay = [](const std::string& file) { return run_leanattn("simulate --kernel leanattn-h100 --trace " + file + " --format json"); };
    const auto found = replay(paper_trace);
    INFO(found.err);
    REQUIRE(found.exit_code == 0);
    const json k = json::parse(found.out)["kernels"][0];
    CHECK(k["snap"] == 0);
    CHECK(k["merge_us"]["simulated"].get<double>() > 0.0);  // the paper's starts split outputs; snap 1's plan split far fewer
    CHECK(std::abs(k["makespan_error"].get<double>()) < 0.25);

    // The snap the trace records is the one replayed.
    t["kernels"][0]["snap"] = 0;
    const TempFile with_snap("with-snap.json", t.dump());
    CHECK(json::parse(replay(with_snap.path).out)["kernels"][0]["simulated_makespan_us"] == k["simulated_makespan_us"]);

    // A trace whose CTAs walked what no plan gives them is refused, not compared with some other plan.
    json tampered = json::parse(slurp(paper_trace));
    json& first = tampered["kernels"][0]["ctas"][0]["segments"][0];
    first["end"] = first["end"].get<std::int64_t>() + 1;
    const TempFile bad("tampered.json", tampered.dump());
    const auto refused = replay(bad.path);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("walks as the trace's CTAs did"));
}

// The trace with one edit (`edit` changes its JSON), in a file of its own.
TempFile edited_trace(const std::string& name, const std::function<void(json&)>& edit) {
    json j = json::parse(slurp(trace));
    edit(j);
    return TempFile(name, j.dump());
}

TEST_CASE("simulate --trace refuses problem flags, other formats and files that are not traces") {
    const TempFile not_trace("not-trace.json", "{\"device\": {\"name\": \"x\"}}");
    // Traces whose numbers no GPU writes: they were drawn (1e8 SMs: 4 GB) or summed (intervals backwards) as given.
    const TempFile no_sms = edited_trace("no-sms.json", [](json& j) { j["device"]["sms"] = 0; });
    const TempFile many_sms = edited_trace("many-sms.json", [](json& j) { j["device"]["sms"] = 100000000; });
    const TempFile bad_sm = edited_trace("bad-sm.json", [](json& j) { j["kernels"][0]["ctas"][3]["sm"] = 1 << 30; });
    const TempFile backwards = edited_trace("backwards.json", [](json& j) {
        json& cta = j["kernels"][0]["ctas"][0];
        std::swap(cta["start"], cta["end"]);
    });
    const TempFile no_makespan = edited_trace("no-makespan.json", [](json& j) { j["kernels"][1]["makespan"] = 0; });
    const TempFile extra_cta = edited_trace("extra-cta.json", [](json& j) { j["kernels"][0]["ctas"].push_back(j["kernels"][0]["ctas"][0]); });
    // Printed as it is in the report and the SVG (an escape sequence reached the terminal, and the SVG was not XML).
    const TempFile escape = edited_trace("escape.json", [](json& j) { j["device"]["name"] = "H100\x1b[2J"; });
    const std::string refused[] = {
        "simulate --trace " + trace + " --batch 4",
        "simulate --trace " + trace + " --ctx 100",
        "simulate --trace " + trace + " --dtype fp32",
        "simulate --trace " + trace + " --format html",
        "simulate --trace /tmp/leanattn-no-such-trace.json",
        "simulate --trace " + not_trace.path,
        "simulate --trace " + heldout1,
        "simulate --kernel no-such-kernel --trace " + trace,
        "simulate --kernel no-such-kernel --model llama-3-8b --ctx 4096",
        "simulate --format svg --trace " + no_sms.path,
        "simulate --format svg --trace " + many_sms.path,
        "simulate --trace " + bad_sm.path,
        "simulate --trace " + backwards.path,
        "simulate --trace " + no_makespan.path,
        "simulate --trace " + extra_cta.path,
        "simulate --format svg --trace " + escape.path,
    };
    for (const std::string& args : refused) {
        CAPTURE(args);
        const auto r = run_leanattn(args);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith("error:"));
    }
}

TEST_CASE("a JSON input is weighed before it is parsed: a trace whose parse would pass the memory limit, or a record line of more than 1 MiB, is refused") {
    // A parse that runs out of memory cannot stop cleanly (the document's destructor allocates while the error unwinds).
    ::setenv("LEANATTN_MAX_MEMORY", "16K", 1);
    const auto big = run_leanattn("simulate --trace " + trace);
    ::unsetenv("LEANATTN_MAX_MEMORY");
    CHECK(big.exit_code == 2);
    CHECK_THAT(big.err, Catch::Contains("its parsed JSON") && Catch::Contains("LEANATTN_MAX_MEMORY"));
    CHECK(run_leanattn("simulate --trace " + trace).exit_code == 0);
    const TempFile long_line("long-line.jsonl", "{\"flags\": \"" + std::string(std::size_t{1} << 20, 'a') + "\"}\n");
    const auto r = run_leanattn("calibrate --kernel leanattn-h100 --check " + long_line.path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(":1") && Catch::Contains("more than 1 MiB on one line"));
}

TEST_CASE("simulate --strategy auto plays the plan auto chose at the time it predicted, whatever --dtype, --kernel or --ctas-per-sm") {
    // fp32: auto weighs at the bytes the plans are played at (it weighed fp16's and printed that time beside fp32's).
    const auto fp32 = run_leanattn("simulate --device a100-80gb --dtype fp32 --strategy auto --ctx 1000 --format json");
    REQUIRE(fp32.exit_code == 0);
    const json a = json::parse(fp32.out);
    CHECK(a["results"][0]["makespan_us"].get<double>() == Approx(a["auto"]["predicted_us"].get<double>()).epsilon(1e-12));
    // The same choice as sweep makes at that value and dtype.
    const json sw = json::parse(run_leanattn("sweep --device a100-80gb --dtype fp32 --strategy auto --vary ctx --values 1000 --format json --no-progress").out);
    CHECK(sw["rows"][0]["auto"]["strategy"] == a["results"][0]["strategy"]);
    CHECK(sw["rows"][0]["auto"]["grid"] == a["results"][0]["grid"]);
    // --ctas-per-sm given with --kernel stands (the kernel's own CTAs per SM replaced it, and the plan auto chose with it).
    const auto three = run_leanattn("simulate --heads 128 --kv-heads 1 --q-len 8 --ctx 2048 --strategy auto --ctas-per-sm 3 --kernel leanattn-h100 --format json");
    REQUIRE(three.exit_code == 0);
    const json t = json::parse(three.out);
    CHECK(t["device"]["ctas_per_sm"] == 3);
    const json* chosen = nullptr;  // the candidate auto took: the one whose time it predicted
    for (const json& c : t["auto"]["candidates"]) {
        if (c["simulated"].get<bool>() && c["predicted_us"] == t["auto"]["predicted_us"] && chosen == nullptr) chosen = &c;
    }
    REQUIRE(chosen != nullptr);
    CHECK(t["results"][0]["grid"] == (*chosen)["grid"]);
    CHECK(t["results"][0]["makespan_us"].get<double>() == Approx(t["auto"]["predicted_us"].get<double>()).epsilon(1e-12));
    const json plain = json::parse(run_leanattn("simulate --kernel leanattn-h100 --ctas-per-sm 3 --format json").out);
    CHECK(plain["device"]["ctas_per_sm"] == 3);
    // Many CTAs per SM: each event re-shares the SM's slots, which the work estimate counts (it let a 40 s run pass as 0.2 s).
    const auto slots = run_leanattn("simulate --strategy no-split --batch 1024 --heads 128 --ctx 128 --ctas-per-sm 1000 --max-work 1e9");
    CHECK(slots.exit_code == 2);
    CHECK_THAT(slots.err, Catch::Contains("--ctas-per-sm 1000"));
}

TEST_CASE("simulate --kernel plans with the kernel's CTAs per SM and reports that device") {
    const auto r = run_leanattn("simulate --kernel leanattn-h100 --model llama-3-8b --ctx 32768 --format json");
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(j["device"]["ctas_per_sm"] == 1);  // leanattn-h100.json: 1 CTA per SM; h100-sxm.json's plans: 2
    const auto paper = json::parse(run_leanattn("simulate --model llama-3-8b --ctx 32768 --format json").out);
    CHECK(paper["device"]["ctas_per_sm"] == 2);
    for (const json& x : j["results"]) {
        if (x["strategy"] == "stream-k") CHECK(x["grid"].get<int>() <= 132);  // one wave of one CTA per SM
    }
}

TEST_CASE("schedule and simulate with --strategy auto: choose, say so on stderr, run what they said, and refuse --splits, --grid and --snap") {
    const auto r = run_leanattn("schedule --strategy auto --model llama-3-8b --ctx 8192");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("auto:") && Catch::Contains("under kernel model leanattn-h100"));
    CHECK_THAT(r.err, Catch::Contains("no-split") && Catch::Contains("stream-k"));

    for (const std::string& problem : {std::string("--model llama-3-8b --ctx 8192"), std::string("--batch 1 --heads 8 --kv-heads 1 --ctx 65536"),
                                       std::string("--batch 132 --heads 8 --kv-heads 1 --ctx 1024"), std::string("--batch 64 --heads 32 --kv-heads 8 --ctx 2000")}) {
        CAPTURE(problem);
        const auto s = run_leanattn("schedule --strategy auto " + problem + " --format json");
        REQUIRE(s.exit_code == 0);
        const json plan = json::parse(s.out);
        // "auto: STRATEGY[ (N splits)], predicted …": the plan printed is that strategy.
        const std::string line = s.err.substr(s.err.find("auto: ") + 6);
        const std::string chosen = line.substr(0, line.find_first_of(" ,"));
        CHECK(plan["strategy"] == chosen);
        if (chosen == "fixed-split") CHECK_THAT(line, Catch::StartsWith("fixed-split (" + std::to_string(plan["splits"].get<int>()) + " splits)"));
    }
    // One output over 64k tokens: not one CTA.
    CHECK_THAT(run_leanattn("schedule --strategy auto --batch 1 --heads 8 --kv-heads 1 --ctx 65536").err, !Catch::Contains("auto: no-split"));

    const auto sim = run_leanattn("simulate --strategy auto --kernel leanattn-h100 --model llama-3-8b --ctx 8192 --format json");
    REQUIRE(sim.exit_code == 0);
    CHECK(json::parse(sim.out)["results"].size() == 1);

    for (const char* extra : {"--splits 4", "--grid 8", "--snap 1"}) {
        CAPTURE(extra);
        const auto bad = run_leanattn(std::string("schedule --strategy auto --model llama-3-8b --ctx 8192 ") + extra);
        CHECK(bad.exit_code == 2);
        CHECK_THAT(bad.err, Catch::StartsWith("error: --strategy auto"));
    }
    CHECK(run_leanattn("schedule --strategy automatic --ctx 100").exit_code == 2);
}

TEST_CASE("auto for a capacity (--plan-for capacity) weighs the plans as the library's DecodePlan does, at ragged live lengths too") {
    // Llama-3-8B's attention at 8 requests of 4096 tokens: for these very lengths no-split on 64 SMs with half the warps;
    // for a cache of that capacity, whose ragged steps it runs 14-16% behind stream-k on an H100, stream-k.
    const std::string problem = "schedule --strategy auto --model llama-3-8b --batch 8 --ctx 4096 --format json";
    const auto exact = run_leanattn(problem);
    const auto capacity = run_leanattn(problem + " --plan-for capacity");
    REQUIRE(exact.exit_code == 0);
    REQUIRE(capacity.exit_code == 0);
    CHECK(json::parse(exact.out)["strategy"] == "no-split");
    CHECK(json::parse(capacity.out)["strategy"] == "stream-k");
    CHECK_THAT(capacity.err, Catch::Contains("two draws of ragged lengths"));
    CHECK_THAT(exact.err, !Catch::Contains("ragged"));
    const auto other = run_leanattn("schedule --strategy stream-k --plan-for capacity");
    CHECK(other.exit_code == 2);
    CHECK_THAT(other.err, Catch::Contains("--plan-for capacity") && Catch::Contains("--strategy auto"));
    CHECK(run_leanattn("schedule --strategy auto --plan-for cache").exit_code == 2);
}

TEST_CASE("schedule and simulate --format json with --strategy auto list every plan weighed, the chosen one among them") {
    const std::string problem = " --strategy auto --model llama-3-8b --batch 8 --ctx 4096 --format json";
    for (const std::string plan_for : {"lengths", "capacity"}) {
        CAPTURE(plan_for);
        const auto r = run_leanattn("schedule" + problem + " --plan-for " + plan_for);
        REQUIRE(r.exit_code == 0);
        const json j = json::parse(r.out);
        REQUIRE(j.contains("auto"));
        const json& a = j["auto"];
        CHECK(a["kernel"] == "leanattn-h100");
        CHECK(a["planned_for"] == plan_for);
        REQUIRE(a["candidates"].size() >= 3);
        CHECK(a["candidates"][0]["strategy"] == "stream-k");  // weighed first: the others must beat it by their margins
        int chosen = 0;
        for (const json& c : a["candidates"]) {
            CHECK(c["predicted_us"].get<double>() > 0.0);
            CHECK(c["margin"].get<double>() >= leanattn::sim::half_tile_margin);  // the margins of strategy_choice.hpp, -5% to 10%
            CHECK(c["margin"].get<double>() <= 0.10);
            if (c["simulated"].get<bool>() && c["strategy"] == j["strategy"] && c["grid"] == j["grid"] &&
                c["predicted_us"].get<double>() == a["predicted_us"].get<double>())
                ++chosen;
            // A plan ruled out by a bound was never faster than the choice.
            if (!c["simulated"].get<bool>()) CHECK(c["predicted_us"].get<double>() >= a["predicted_us"].get<double>() * 0.9);
        }
        CHECK(chosen >= 1);
        CHECK(j.contains("ctas"));  // the plan follows, whole
    }
    // Played under the kernel model auto weighed it with (simulate's default with auto, or named), the plan takes the time
    // auto predicted, and the report names that model; under another model named, another time.
    for (const std::string kernel : {"", " --kernel leanattn-h100"}) {
        CAPTURE(kernel);
        const auto sim = run_leanattn("simulate" + kernel + problem);
        REQUIRE(sim.exit_code == 0);
        const json s = json::parse(sim.out);
        CHECK(s["auto"]["candidates"].size() >= 3);
        CHECK(s["kernel"] == "leanattn-h100");
        CHECK(s["results"][0]["makespan_us"].get<double>() == Approx(s["auto"]["predicted_us"].get<double>()).epsilon(1e-9));
    }
    // The HTML pages show what was weighed, the chosen plan marked once; without auto, no such section.
    for (const std::string command : {"schedule", "simulate"}) {
        CAPTURE(command);
        const std::string html = run_leanattn(command + " --strategy auto --model llama-3-8b --batch 8 --ctx 4096 --format html").out;
        CHECK_THAT(html, Catch::Contains("Why this plan") && Catch::Contains("leanattn-h100"));
        std::size_t chosen = 0;
        for (std::size_t at = html.find("class=\"chosen\""); at != std::string::npos; at = html.find("class=\"chosen\"", at + 1)) ++chosen;
        CHECK(chosen == 1);
        CHECK_THAT(run_leanattn(command + " --model llama-3-8b --batch 8 --ctx 4096 --format html").out, !Catch::Contains("Why this plan"));
    }
    const json paper = json::parse(run_leanattn("simulate --kernel paper" + problem).out);
    CHECK(paper["kernel"] == "paper");
    CHECK(paper["results"][0]["makespan_us"].get<double>() != Approx(paper["auto"]["predicted_us"].get<double>()).epsilon(1e-3));
    CHECK_THAT(run_leanattn("simulate --model llama-3-8b --batch 8 --ctx 4096 --strategy no-split").out, Catch::Contains("kernel model paper"));
    // Without auto there is nothing weighed to list.
    CHECK_FALSE(json::parse(run_leanattn("schedule --model llama-3-8b --batch 8 --ctx 4096 --format json").out).contains("auto"));
    CHECK_FALSE(json::parse(run_leanattn("simulate --model llama-3-8b --batch 8 --ctx 4096 --format json").out).contains("auto"));
}

TEST_CASE("auto weighs host-lengths steps with the device's host-lengths kernel model, where the device file names one") {
    using leanattn::app::StepLengths;
    leanattn::DeviceSpec h100 = leanattn::app::load_device("h100-sxm");
    CHECK(h100.kernel_model_host_lengths == "leanattn-h100-host");
    CHECK(leanattn::app::kernel_for_device(h100).name == "leanattn-h100");
    CHECK(leanattn::app::kernel_for_device(h100, StepLengths::device).name == "leanattn-h100");
    CHECK(leanattn::app::kernel_for_device(h100, StepLengths::host).name == "leanattn-h100-host");
    h100.kernel_model_host_lengths.clear();  // a device that names one model: it serves both kinds of step
    CHECK(leanattn::app::kernel_for_device(h100, StepLengths::host).name == "leanattn-h100");
    // The two models weigh plans differently: the choice records the model it was made under.
    leanattn::Problem qwen;  // Qwen2.5-7B, one request of 16k tokens
    qwen.q_heads = 28;
    qwen.kv_heads = 4;
    qwen.ctx = {16384};
    const leanattn::CostLimits unlimited{leanattn::saturating::max, leanattn::saturating::max, {}, {}};
    const auto host = leanattn::app::choose_auto(qwen, leanattn::app::load_device("h100-sxm"), 2, {}, unlimited, false, StepLengths::host);
    CHECK(host.kernel.name == "leanattn-h100-host");
}

TEST_CASE("sweep --strategy auto chooses at each value, beside the three strategies, all under the model auto weighs with") {
    const std::string problem = " --heads 8 --kv-heads 1 --vary ctx --values 1k,16k,64k --no-progress";
    const auto r = run_leanattn("sweep --strategy auto --format json" + problem);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());  // nothing chosen once for the base problem
    const json j = json::parse(r.out);
    REQUIRE(j["rows"].size() == 3);
    CHECK(j["kernel"] == "leanattn-h100");
    std::set<std::string> plans;
    for (const json& row : j["rows"]) {
        CAPTURE(row["value"]);
        REQUIRE(row["results"].size() == 3);  // the three strategies, as with --strategy all
        const json& a = row["auto"];
        // Played under the model it was weighed with, the chosen plan takes the time auto predicted, and it is the plan
        // `simulate --strategy auto` chooses at that value.
        CHECK(a["makespan_us"].get<double>() == Approx(a["predicted_us"].get<double>()).epsilon(1e-9));
        const json s = json::parse(run_leanattn("simulate --strategy auto --format json --heads 8 --kv-heads 1 --ctx " + std::to_string(row["value"].get<int>())).out);
        CHECK(a["strategy"] == s["results"][0]["strategy"]);
        CHECK(a["grid"] == s["results"][0]["grid"]);
        CHECK(a["predicted_us"].get<double>() == Approx(s["auto"]["predicted_us"].get<double>()).epsilon(1e-12));
        plans.insert(a["strategy"].get<std::string>() + "/" + std::to_string(a["grid"].get<int>()));
        // The three strategies under the same model: auto's plan is no slower than the best of them by more than its margins.
        double best = 1e300;
        for (const json& res : row["results"]) best = std::min(best, res["makespan_us"].get<double>());
        CHECK(a["makespan_us"].get<double>() <= best / (1.0 - leanattn::sim::fixed_split_margin) + 1e-9);
    }
    CHECK(plans.size() >= 2);  // the choice moves with the context: one choice for the base problem would not
    const auto csv = run_leanattn("sweep --strategy auto --format csv" + problem);
    CHECK_THAT(csv.out, Catch::Contains(",auto_us,auto_strategy,auto_grid,auto_splits,auto_tile_rows\n"));
    CHECK_THAT(run_leanattn("sweep --strategy auto" + problem).out, Catch::Contains("auto's plan"));
    const json plain = json::parse(run_leanattn("sweep --format json" + problem).out);
    CHECK_FALSE(plain["rows"][0].contains("auto"));
    CHECK(plain["kernel"] == "paper");
    // sweep weighs auto at each value's own lengths: it neither offers --plan-for nor takes it.
    const auto capacity = run_leanattn("sweep --strategy auto --plan-for capacity" + problem);
    CHECK(capacity.exit_code == 2);
    CHECK_THAT(capacity.err, Catch::Contains("plan-for"));
    CHECK_THAT(run_leanattn("sweep --help").out, !Catch::Contains("--plan-for"));
    // The swept dimension's own flag given too is refused (it was dropped without a word).
    for (const char* swept : {"--vary ctx --ctx 5000 --values 1k,2k", "--vary batch --batch 3 --values 1,2"}) {
        const auto both = run_leanattn(std::string("sweep ") + swept);
        CHECK(both.exit_code == 2);
        CHECK_THAT(both.err, Catch::Contains("leave --"));
    }
    CHECK(run_leanattn("sweep --vary batch --ctx 5000 --values 1,2 --no-progress").exit_code == 0);
    CHECK_THAT(run_leanattn("schedule --help").out, Catch::Contains("--plan-for"));
}

#ifndef LEANATTN_WITH_CUDA
TEST_CASE("a build without CUDA keeps `cuda` on the command line and says why it cannot run") {
    const auto r = run_leanattn("cuda validate --batch 1");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("built without CUDA"));
    CHECK_THAT(run_leanattn("--help").out, Catch::Contains("cuda") && Catch::Contains("not in this build"));
}
#endif

#ifdef LEANATTN_WITH_CUDA  // the command line runs `cuda` only where the CUDA code was built
TEST_CASE("cuda bench --shapes: a refused line becomes {flags, error}, the rest goes on, and the exit is 2") {
    // Lines the flags refuse before any GPU is looked for, so the answer is the same with a GPU or without.
    const TempFile shapes("bench-shapes.txt",
                          "# refused lines\n"
                          "--batch 0 --ctx 5\n"
                          "\n"
                          "--heads 3 --kv-heads 2 --ctx 100\n"
                          "--ctx 100 --no-such-flag 1\n");
    const TempFile out("bench.jsonl");
    const auto r = run_leanattn("cuda bench --shapes " + shapes.path + " --repeat 2 -o " + out.path);
    CHECK(r.exit_code == 2);
    const std::vector<json> lines = json_lines(slurp(out.path));
    REQUIRE(lines.size() == 3);
    const char* flags[] = {"--batch 0 --ctx 5", "--heads 3 --kv-heads 2 --ctx 100", "--ctx 100 --no-such-flag 1"};
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(lines[i].size() == 2);
        CHECK(lines[i]["flags"] == flags[i]);
        CHECK_FALSE(lines[i]["error"].get<std::string>().empty());
    }
    CHECK_THAT(r.err, Catch::Contains("line 1 of") && Catch::Contains("line 3 of"));
    CHECK(run_leanattn("cuda bench --shapes /tmp/leanattn-no-such-shapes.txt").exit_code == 2);
    // Joined to its value it is read too (it was passed on to one bench of the default problem, its file never read).
    const auto joined = run_leanattn("cuda bench --shapes=/tmp/leanattn-no-such-shapes.txt");
    CHECK(joined.exit_code == 2);
    CHECK_THAT(joined.err, Catch::Contains("leanattn-no-such-shapes.txt"));
    const TempFile none("no-shapes.txt", "# only a comment\n");
    CHECK(run_leanattn("cuda bench --shapes " + none.path).exit_code == 2);
    // A flag on a line and on the command line too: that line's error says so (Boost's words named neither).
    const TempFile twice("twice.txt", "--ctx 100 --repeat 3\n");
    const auto both = run_leanattn("cuda bench --shapes " + twice.path + " --repeat 2");
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.out, Catch::Contains("--repeat (is given both on this line and on the command line"));
    // Lines that would run, without a usable GPU: refused once for the sweep, and -o not written (it was refused line
    // by line into a file of errors).
    const TempFile runnable("runnable.txt", "--ctx 100\n--ctx 200\n--ctx 300\n");
    const TempFile unwritten("bench-unwritten.jsonl");
    std::remove(unwritten.path.c_str());
    const auto gpu_less = run_leanattn("cuda bench --shapes " + runnable.path + " -o " + unwritten.path);
    if (gpu_less.err.find("no usable CUDA device") != std::string::npos) {
        CHECK(gpu_less.exit_code == 2);
        CHECK(gpu_less.err.find("no usable CUDA device") == gpu_less.err.rfind("no usable CUDA device"));  // once
        CHECK_FALSE(std::ifstream(unwritten.path).good());
    }

    // A measured file of only refused lines holds no problem to calibrate on.
    const auto c = run_leanattn("calibrate --kernel leanattn-h100 --check " + out.path);
    CHECK(c.exit_code == 2);
    CHECK_THAT(c.err, Catch::Contains("holds no measured problem"));
}
#endif

TEST_CASE("kernel files: kernel_to_json reads back to the same model, and duplicate, missing and unknown keys are refused") {
    const std::string good = kernel_text();
    const leanattn::sim::KernelModel k = leanattn::app::kernel_from_text(good, "k.json");
    CHECK(k.name == "leanattn-h100");
    CHECK(leanattn::app::kernel_to_json(k, "a note").dump(2) == good);  // every field, exactly

    json j = json::parse(good);
    {  // a duplicate key: nlohmann would keep the last; the reader refuses
        std::string dup = good;
        dup.insert(dup.find('{') + 1, "\n  \"launch_ns\": 1.0,");
        const std::string e = refusal(dup);
        CHECK_THAT(e, Catch::Contains("k.json") && Catch::Contains("launch_ns"));
    }
    for (const char* key : {"launch_ns", "merge", "compute_overlaps_loads", "ctas_per_sm", "tensor_core_rows_min", "cta_ns_per_kb_by_path", "name"}) {
        CAPTURE(key);
        json missing = j;
        missing.erase(key);
        CHECK_THAT(refusal(missing.dump()), Catch::Contains(key));
    }
    {
        json unknown = j;
        unknown["cta_ns_per_kb_by_path"]["d512"] = 1.0;
        CHECK_THAT(refusal(unknown.dump()), Catch::Contains("d512"));
    }
    for (const char* merge : {"serial", "all_at_once", "shared"}) {  // each merge order reads back as written
        json m = j;
        m["merge"] = merge;
        CHECK(leanattn::app::kernel_to_json(leanattn::app::kernel_from_text(m.dump(), "k.json"))["merge"] == merge);
    }
    {  // a path left out costs 0
        json partial = j;
        partial["cta_ns_per_kb_by_path"] = {{"d128", 5.0}};
        const leanattn::sim::KernelModel p = leanattn::app::kernel_from_text(partial.dump(), "k.json");
        CHECK(p.cta_ns_per_kb_by_path[3] == 5.0);
        CHECK(p.cta_ns_per_kb_by_path[0] == 0.0);
        CHECK(p.cta_ns_per_kb_by_path[4] == 0.0);
    }
    const auto refused_with = [&](const char* key, const json& value, const std::string& says) {
        json bad = j;
        bad[key] = value;
        const std::string e = refusal(bad.dump());
        CAPTURE(key, value.dump(), e);
        CHECK_THAT(e, Catch::Contains(says));
    };
    refused_with("merge", "parallel", "merge");
    refused_with("compute_overlaps_loads", "yes", "compute_overlaps_loads");
    refused_with("launch_ns", -5.0, "launch_ns");
    refused_with("launch_ns", "5", "launch_ns");
    refused_with("latency_knee_exponent", 0.5, "latency_knee_exponent");
    refused_with("ctas_per_sm", -1, "ctas_per_sm");
    refused_with("ctas_per_sm", 1.5, "ctas_per_sm");
    refused_with("tensor_core_rows_min", 0, "tensor_core_rows_min");
    refused_with("reread_lag_mb", -1.0, "reread_lag_mb");
    {  // optional: a file without it does not age the L2
        json old_file = j;
        old_file.erase("reread_lag_mb");
        CHECK(leanattn::app::kernel_from_text(old_file.dump(), "k.json").reread_lag_mb == 0.0);
    }
    refused_with("cta_ns_per_kb_by_path", json::array({1.0}), "cta_ns_per_kb_by_path");
    refused_with("name", "", "name");
    CHECK_THAT(refusal("[1, 2]"), Catch::Contains("k.json"));
    CHECK_THAT(refusal("{\"name\": \"x\""), Catch::Contains("k.json"));

    // Through load_kernel: a file path is read as a file; `paper` is the device's own timing.
    const TempFile file("kernel.json", good);
    const leanattn::DeviceSpec h100 = leanattn::app::load_device("h100-sxm");
    CHECK(leanattn::app::kernel_to_json(leanattn::app::load_kernel(file.path, h100)).dump() == leanattn::app::kernel_to_json(k).dump());
    CHECK(leanattn::app::load_kernel("paper", h100).launch_ns == h100.timing.launch_overhead_ns);
    CHECK_THROWS_AS(leanattn::app::load_kernel("no-such-kernel", h100), leanattn::InputError);
    CHECK_THROWS_AS(leanattn::app::load_kernel("/tmp/leanattn-no-such-kernel.json", h100), leanattn::InputError);
}

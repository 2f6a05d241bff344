// `leanattn cpu` as other tools read it: the JSON keys other tools read (one object, or one per strategy under
// "results"), errors within tolerance on a small problem, and bad flags refused with InputError (exit 2).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "cmd_cpu.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "cpu/read_bandwidth.hpp"
#include "core/reference.hpp"

using namespace leanattn;
using namespace leanattn::app;

namespace {

CpuOptions small_run(std::vector<Strategy> strategies, DType dtype, CacheLayout layout) {
    CpuOptions o;
    o.input.problem.batch = 2;
    o.input.problem.q_heads = 8;
    o.input.problem.kv_heads = 2;
    o.input.problem.head_dim = 64;
    o.input.problem.tile = 256;
    o.input.problem.ctx = {3000, 700};
    o.input.device.name = "test";
    o.input.device.sms = 6;
    o.input.device.ctas_per_sm = 2;
    o.input.strategies = std::move(strategies);
    o.input.format = "json";
    o.dtype = dtype;
    o.layout = layout;
    o.threads = 3;
    o.repeat = 2;
    o.measure_read = false;  // 1 GiB and more: measured once below, on a small buffer
    return o;
}

void check_result(const nlohmann::json& r, DType dtype) {
    for (const char* key : {"rel_l2_err", "max_abs_err", "ms", "gbps", "read_gbps", "threads"}) {
        CAPTURE(key);
        REQUIRE(r.contains(key));
    }
    CHECK(r["rel_l2_err"].get<double>() > 0.0);  // zero would mean the check compared nothing
    CHECK(r["rel_l2_err"].get<double>() <= tolerance(dtype));
    CHECK(r["max_abs_err"].get<double>() < 1e-2);
    CHECK(r["ms"].get<double>() > 0.0);
    CHECK(r["gbps"].get<double>() > 0.0);
    CHECK(r["threads"].get<int>() == 3);
}

}  // namespace

TEST_CASE("cpu --format json: one strategy gives the keys other tools read at the top level") {
    std::ostringstream out;
    REQUIRE(run_cpu(small_run({Strategy::stream_k}, DType::bf16, CacheLayout::ragged), out) == exit_ok);
    const auto j = nlohmann::json::parse(out.str());
    check_result(j, DType::bf16);
    CHECK(j["strategy"] == "stream-k");
}

TEST_CASE("cpu --strategy all --format json: one object per strategy under results") {
    std::ostringstream out;
    REQUIRE(run_cpu(small_run({Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}, DType::fp32, CacheLayout::padded), out) ==
            exit_ok);
    const auto j = nlohmann::json::parse(out.str());
    REQUIRE(j["results"].size() == 3);
    CHECK(j["results"][0]["strategy"] == "stream-k");
    CHECK(j["results"][1]["strategy"] == "fixed-split");
    CHECK(j["results"][2]["strategy"] == "no-split");
    for (const auto& r : j["results"]) check_result(r, DType::fp32);
}

TEST_CASE("the plain read bandwidth is measured for real") {
    const double gbps = cpu::measure_read_gbps(2, 64.0 * 1024 * 1024, 1);
    CHECK(gbps > 0.1);    // any machine streams 64 MiB faster than 0.1 GB/s
    CHECK(gbps < 1e4);    // and none at 10 TB/s: the sum was not optimised away
    CHECK(cpu::read_buffer_bytes() >= 1073741824.0);
}

TEST_CASE("leanattn cpu refuses bad flags with InputError") {
    const Args ctx = {"--heads", "2", "--head-dim", "16", "--ctx", "100"};
    for (const Args& bad : {Args{"--dtype", "fp8"}, Args{"--layout", "strided"}, Args{"--threads", "-1"}, Args{"--repeat", "0"}}) {
        Args args = ctx;
        args.insert(args.end(), bad.begin(), bad.end());
        CAPTURE(bad[0], bad[1]);
        CHECK_THROWS_AS(cpu_main(args), InputError);
    }
}

// `leanattn cuda validate|bench`. On a GPU: validate on every cache layout (padded, token-major, paged with
// blocks of 1, 16 and 256 tokens, ragged) × dtype × kernel path (1, 2, 4, 8 query heads per KV head: CUDA
// cores and tensor cores; head_dim 64 and 128), each checking all three strategies against float64 over
// 3 NaN-poisoned runs; JSON-only output; the trace file. Without a GPU those skip with a message; the flag
// checks and the help run anywhere (they come before the device is looked for).
#include <catch2/catch.hpp>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

using leanattn::testing::run_leanattn;
using leanattn::testing::slurp;

namespace {

bool gpu_or_skip(const char* what) {
    const auto probe = run_leanattn("cuda validate --batch 1 --heads 2 --head-dim 64 --ctx 300");
    if (probe.exit_code == 2 && probe.err.find("no usable CUDA device") != std::string::npos) {
        std::cout << "skipping " << what << ": " << probe.err;
        WARN("skipped: " << probe.err);
        return false;
    }
    return true;
}

}  // namespace

TEST_CASE("the CUDA kernels match float64 in every cache layout, dtype and kernel path, for every strategy") {
    if (!gpu_or_skip("the CUDA kernel checks")) return;
    const char* layouts[] = {"--layout padded", "--layout token-major", "--layout paged --block-size 1", "--layout paged --block-size 16",
                             "--layout paged --block-size 256", "--layout ragged"};
    for (const char* layout : layouts) {
        for (const char* dtype : {"fp16", "bf16"}) {
            for (int group : {1, 2, 4, 8}) {
                for (int head_dim : {64, 128}) {
                    // Three requests: one token, partial LeanTiles, several LeanTiles (tile 256 at d 64, 128 at d 128).
                    const std::string flags = std::string(layout) + " --dtype " + dtype + " --batch 3 --kv-heads 4 --heads " + std::to_string(4 * group) +
                                              " --head-dim " + std::to_string(head_dim) + " --ctx 1,700,2600";
                    CAPTURE(flags);
                    const auto r = run_leanattn("cuda validate " + flags);
                    INFO(r.out << r.err);
                    CHECK(r.exit_code == 0);
                    CHECK(r.out.find("FAILED") == std::string::npos);
                    CHECK(r.out.find("stream-k") != std::string::npos);
                    CHECK(r.out.find("fixed-split") != std::string::npos);
                    CHECK(r.out.find("no-split") != std::string::npos);
                }
            }
        }
    }
}

TEST_CASE("cuda validate and bench with --format json print JSON only; --trace writes a per-CTA trace") {
    if (!gpu_or_skip("the CUDA JSON checks")) return;
    const auto v = run_leanattn("cuda validate --batch 2 --heads 16 --kv-heads 4 --head-dim 128 --ctx 5000,77 --layout paged --format json");
    INFO(v.out << v.err);
    REQUIRE(v.exit_code == 0);
    const auto vj = nlohmann::json::parse(v.out);  // throws on any text around the JSON
    CHECK(vj["ok"] == true);
    CHECK(vj["results"].size() == 3);
    CHECK(vj["layout"] == "paged");

    const std::string trace = "/tmp/leanattn-test-trace-" + std::to_string(::getpid()) + ".json";
    const auto b = run_leanattn("cuda bench --batch 2 --heads 16 --kv-heads 4 --head-dim 128 --ctx 5000,77 --repeat 5 --format json --trace " + trace);
    INFO(b.out << b.err);
    REQUIRE(b.exit_code == 0);
    const auto bj = nlohmann::json::parse(b.out);
    CHECK(bj["repeat"] == 5);
    for (const auto& r : bj["results"]) CHECK(r["median_us"].get<double>() > 0);
    const auto tj = nlohmann::json::parse(slurp(trace));
    std::remove(trace.c_str());
    REQUIRE(tj["kernels"].size() == 3);
    for (const auto& k : tj["kernels"]) {
        CAPTURE(k["strategy"]);
        REQUIRE(k["ctas"].size() == k["grid"].get<std::size_t>());
        std::int64_t tiles = 0, first_start = -1;
        for (const auto& c : k["ctas"]) {
            CHECK(c["start"].get<std::int64_t>() <= c["end"].get<std::int64_t>());
            first_start = first_start < 0 ? c["start"].get<std::int64_t>() : std::min(first_start, c["start"].get<std::int64_t>());
            for (const auto& s : c["segments"]) {
                tiles += s["end"].get<std::int64_t>() - s["begin"].get<std::int64_t>();
                CHECK(s["stream"][0].get<std::int64_t>() <= s["stream"][1].get<std::int64_t>());
                CHECK(s["merge_store"][0] == s["stream"][1]);
                CHECK(s["wait"].is_null() == (s["role"] != "reduce"));
            }
        }
        CHECK(first_start == 0);
        CHECK(tiles == k["total_tiles"].get<std::int64_t>());
    }
}

TEST_CASE("leanattn cuda teaches its flags") {
    const auto top = run_leanattn("cuda --help");
    CHECK(top.exit_code == 0);
    CHECK(top.out.find("validate") != std::string::npos);
    CHECK(top.out.find("bench") != std::string::npos);
    const auto validate = run_leanattn("cuda validate --help");
    CHECK(validate.exit_code == 0);
    for (const char* flag : {"--layout", "--block-size", "--dtype", "--seed", "token-major", "float64"}) {
        CAPTURE(flag);
        CHECK(validate.out.find(flag) != std::string::npos);
    }
    const auto bench = run_leanattn("cuda bench --help");
    CHECK(bench.exit_code == 0);
    for (const char* flag : {"--repeat", "--trace", "--layout", "CUDA graph", "L2", "JSON only"}) {
        CAPTURE(flag);
        CHECK(bench.out.find(flag) != std::string::npos);
    }
}

TEST_CASE("leanattn cuda refuses bad flags before it looks for a GPU, naming the flag") {
    const std::pair<const char*, const char*> cases[] = {
        {"cuda validate --layout diagonal", "--layout diagonal"},
        {"cuda validate --layout paged --block-size 0", "--block-size 0"},
        {"cuda validate --layout paged --block-size 257", "--block-size 257"},
        {"cuda validate --dtype fp32", "--dtype fp32"},
        {"cuda validate --head-dim 96", "--head-dim 96"},
        {"cuda validate --q-len 2 --ctx 100", "--q-len 2"},
        {"cuda validate --heads 24 --kv-heads 8", "--heads/--kv-heads"},
        {"cuda bench --repeat 0", "--repeat 0"},
        {"cuda validate --trace t.json", "--trace"},
        {"cuda profile", "cuda profile"},
    };
    for (const auto& [args, flag] : cases) {
        CAPTURE(args);
        const auto r = run_leanattn(args);
        CHECK(r.exit_code == 2);
        CHECK(r.err.rfind(std::string("error: ") , 0) == 0);
        CHECK(r.err.find(flag) != std::string::npos);
    }
}

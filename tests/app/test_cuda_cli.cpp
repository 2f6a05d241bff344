// `leanattn cuda validate|bench`. On a GPU: validate on every cache layout (padded, token-major, paged with
// blocks of 1, 16 and 256 tokens, ragged) × dtype × group (1, 2, 4, 8 query heads per KV head: CUDA cores and
// tensor cores; head_dim 64 and 128), and every kernel path (head dims 64/96/128/256 × row counts 1-128 ×
// q_len 1-8), each checking all three strategies against float64 over
// 3 NaN-poisoned runs; JSON-only output; the trace file. Without a GPU those skip with a message; the flag
// checks and the help run anywhere (they come before the device is looked for).
#include <catch2/catch.hpp>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "data_catalog.hpp"
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

// `cuda validate FLAGS` passes, having checked all three strategies against float64.
void check_validates(const std::string& flags) {
    CAPTURE(flags);
    const auto r = run_leanattn("cuda validate " + flags);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("FAILED") == std::string::npos);
    for (const char* strategy : {"stream-k", "fixed-split", "no-split"}) CHECK(r.out.find(strategy) != std::string::npos);
}

}  // namespace

TEST_CASE("cuda bench without --device takes the timing keys of the device file that describes the GPU, and says which") {
    if (!gpu_or_skip("the device file of the GPU")) return;
    const std::string problem = "cuda bench --batch 2 --heads 8 --head-dim 128 --ctx 3000 --repeat 3 --format json";
    const auto r = run_leanattn(problem);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["device_file"] == leanattn::app::default_device_for_gpu(j["device"].get<std::string>()));
    const auto named = nlohmann::json::parse(run_leanattn(problem + " --device h100-sxm").out);
    CHECK(named["device_file"] == "h100-sxm");
}

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
                    check_validates(flags);
                }
            }
        }
    }
}

TEST_CASE("every kernel path matches float64: head dims 64/96/128/256 x row counts 1-128 x q_len 1-8, causal among the new tokens") {
    if (!gpu_or_skip("the kernel path checks")) return;
    // (query heads per KV head, q_len): one per row count the kernels are compiled for (1, 2, 4, … 128 rows),
    // with the groups and draft lengths of real models: Llama-3.2-3B's 3, Qwen2.5's 5 and 7, Llama-3.1-405B's
    // 16, Falcon-7B's 71 (MQA).
    const std::pair<int, int> paths[] = {{1, 1}, {1, 2}, {3, 1}, {7, 1}, {4, 4}, {5, 4}, {16, 2}, {7, 8}, {71, 1}, {16, 8}};
    const char* layouts[] = {"--layout padded", "--layout paged --block-size 16", "--layout ragged", "--layout token-major"};
    int n = 0;
    for (int head_dim : {64, 96, 128, 256}) {
        for (const auto& [group, q_len] : paths) {
            if (head_dim == 256 && group * q_len > 64) continue;  // the kernels' limit there (check_supported)
            // Two KV heads, three requests: the q_len new tokens alone, partial LeanTiles, several LeanTiles.
            const std::string flags = std::string(layouts[n % 4]) + " --dtype " + (n % 2 ? "bf16" : "fp16") + " --batch 3 --kv-heads 2 --heads " +
                                      std::to_string(2 * group) + " --q-len " + std::to_string(q_len) + " --head-dim " + std::to_string(head_dim) +
                                      " --ctx " + std::to_string(q_len) + ",700,2600";
            ++n;
            check_validates(flags);
        }
    }
}

TEST_CASE("staged steps (the host's table copied into the workspace before the step) match float64, and bench times them") {
    if (!gpu_or_skip("the staged-step checks")) return;
    const char* problems[] = {"--batch 3 --kv-heads 4 --heads 16 --head-dim 128 --ctx 1,700,2600",   // tensor cores, partial LeanTiles
                              "--batch 2 --heads 8 --head-dim 64 --ctx 300,5000",                   // CUDA cores (one row a tile)
                              "--batch 2 --heads 28 --kv-heads 4 --head-dim 128 --ctx 900,3000 --q-len 4",  // row blocks, causal drafts
                              "--model falcon-7b --batch 1 --ctx 16384"};                            // MQA, a shared merge
    for (const char* layout : {"--layout padded", "--layout paged --block-size 16", "--layout ragged"}) {
        for (const char* dtype : {"fp16", "bf16"}) {
            for (const char* problem : problems) check_validates(std::string(problem) + " " + layout + " --dtype " + dtype + " --lengths staged");
        }
    }
    const auto r = run_leanattn("cuda bench --batch 2 --heads 8 --kv-heads 2 --ctx 3000 --lengths staged --repeat 5 --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["lengths"] == "staged");
    CHECK(doc["results"].size() == 3);
    for (const auto& result : doc["results"]) CHECK(result["median_us"].get<double>() > 0.0);
}

TEST_CASE("cuda validate and bench with --format json print JSON only, and --trace writes a per-CTA trace") {
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
    for (const char* flag : {"--repeat", "--trace", "--layout", "CUDA graph", "L2", "JSON only", "staged"}) {
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
        {"cuda validate --head-dim 80", "--head-dim 80"},
        {"cuda validate --q-len 9 --ctx 100", "--q-len 9"},
        {"cuda validate --heads 256 --kv-heads 1 --q-len 8 --ctx 100", "--heads/--kv-heads"},
        {"cuda validate --model gemma-2-9b --heads 72 --kv-heads 1 --tile-rows 72", "--tile-rows 72"},
        {"cuda bench --repeat 0", "--repeat 0"},
        {"cuda validate --lengths table", "--lengths table"},
        {"cuda bench --lengths staged --trace t.json", "--trace"},
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

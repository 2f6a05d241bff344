// The command line as users (and other tools) meet it: golden Figure 1 JSON, help, errors, exit codes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "data_catalog.hpp"
#include "run_command.hpp"

using leanattn::testing::run_leanattn;
using leanattn::testing::slurp;

namespace {
const std::string figure1 = "schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper";
}

TEST_CASE("schedule --format json prints the paper's Figure 1 exactly as the golden file") {
    const auto r = run_leanattn(figure1 + " --format json");
    REQUIRE(r.exit_code == 0);
    const auto golden = nlohmann::json::parse(slurp(std::string(LEANATTN_SOURCE_DIR) + "/data/figures/figure1-stream-k.json"));
    CHECK(nlohmann::json::parse(r.out) == golden);
}

TEST_CASE("the stream-k rule and snap are in the JSON and the text, snap 0 is the paper's plan, and Figure 1's problem under the default rule is two CTAs a head") {
    const std::string problem = "schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280";
    const auto aligned = nlohmann::json::parse(run_leanattn(problem + " --format json").out);
    CHECK(aligned["stream_k_rule"] == "aligned");
    // paper-5sm's fixed costs make the paper's 2.5 CTAs a head (a restart, a partial, a flag and two merges) cost
    // more than they balance; two CTAs a head on 4 of the 5 SMs (one partial, no restart) cost less than one.
    CHECK(aligned["grid"] == 4);
    for (const auto& o : aligned["outputs"]) CHECK(o["ctas"].size() == 2);
    auto snap0 = nlohmann::json::parse(run_leanattn(problem + " --snap 0 --format json").out);
    auto paper = nlohmann::json::parse(run_leanattn(problem + " --stream-k-rule paper --format json").out);
    CHECK(snap0["snap_tiles"] == 0);
    snap0.erase("stream_k_rule"), paper.erase("stream_k_rule");
    CHECK(snap0 == paper);
    CHECK_THAT(run_leanattn(problem + " --snap 1").out, Catch::Contains("rule aligned, snap 1 LeanTile\n"));
    CHECK(run_leanattn("simulate --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper").exit_code == 0);
    const auto fixed = nlohmann::json::parse(run_leanattn(problem + " --strategy fixed-split --format json").out);
    CHECK_FALSE(fixed.contains("stream_k_rule"));
}

TEST_CASE("schedule text shows Figure 1 as a per-SM timeline that fits 80 columns") {
    const auto r = run_leanattn(figure1);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("SM2 CTA2") && Catch::Contains("h0[4,5)") && Catch::Contains("h1[0,1)*"));
    CHECK_THAT(r.out, Catch::Contains("reduces h0 <- CTA1,2") && Catch::Contains("reduces h1 <- CTA3,4"));
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("SM", 0) == 0) CHECK(line.size() <= 80);
    }
}

TEST_CASE("a large plan is summarised, and --check validates it") {
    // 6 · 48 · 65536/256 = 73,728 LeanTiles on 264 CTAs: 279 each, and 73,728 − 264 · 279 = 72 CTAs take one more.
    const auto r = run_leanattn("schedule --batch 6 --heads 48 --head-dim 64 --ctx 65536 --stream-k-rule paper --check");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("LeanTiles per CTA:  279 tiles: 192  280 tiles: 72"));
    CHECK_THAT(r.err, Catch::Contains("check: ok"));
}

TEST_CASE("help teaches and version answers") {
    CHECK(run_leanattn("--version").exit_code == 0);
    const auto help = run_leanattn("schedule --help");
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("--ctx") && Catch::Contains("--strategy") && Catch::Contains("Figure 1"));
    const auto top = run_leanattn("--help");
    CHECK_THAT(top.out, Catch::Contains("schedule") && Catch::Contains("devices") && Catch::Contains("models"));
}

TEST_CASE("help and version report a failed write as any output does, instead of exiting 0") {
    // /dev/full takes no bytes: a script piping --help somewhere that fails must see it fail.
    for (const char* args : {"--help", "--version", "schedule --help", "cpu --help"}) {
        const int status = std::system((std::string(LEANATTN_BINARY) + " " + args + " >/dev/full 2>/dev/null").c_str());
        INFO(args);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 2);
    }
}

TEST_CASE("devices and models list what data/ holds, as text and JSON") {
    const auto devices = run_leanattn("devices --format json");
    REQUIRE(devices.exit_code == 0);
    const auto d = nlohmann::json::parse(devices.out);
    std::set<std::string> names;
    for (const auto& dev : d["devices"]) names.insert(dev["name"].get<std::string>());
    for (const char* n : {"paper-5sm", "a100-80gb", "h100-sxm", "h200", "a100-80gb-x8"}) CHECK(names.count(n) == 1);
    const auto models = run_leanattn("models --format json");
    REQUIRE(models.exit_code == 0);
    const auto m = nlohmann::json::parse(models.out);
    for (const auto& model : m["models"]) {
        CAPTURE(model["name"].get<std::string>());
        CHECK(model["q_heads"].get<int>() % model["kv_heads"].get<int>() == 0);
        // Gemma 2's configs set head_dim apart from hidden_size / heads (data/models/README.md).
        const std::string name = model["name"].get<std::string>();
        if (name.rfind("gemma-2-", 0) == 0) continue;
        CHECK(model["q_heads"].get<int>() * model["head_dim"].get<int>() == model["hidden_size"].get<int>());
    }
}

TEST_CASE("a model fills the head shape and explicit flags win") {
    const auto r = run_leanattn("schedule --model llama-3-70b --ctx 2048 --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["problem"]["q_heads"] == 64);
    CHECK(j["problem"]["kv_heads"] == 8);
    CHECK(j["problem"]["head_dim"] == 128);
    CHECK(j["outputs"].size() == 8);
    const auto over = nlohmann::json::parse(run_leanattn("schedule --model llama-3-70b --kv-heads 16 --ctx 2048 --format json").out);
    CHECK(over["problem"]["kv_heads"] == 16);
    // --heads alone keeps the model's KV heads (GQA stays GQA), and says so where they do not divide.
    const auto heads = nlohmann::json::parse(run_leanattn("schedule --model llama-3-70b --heads 128 --ctx 2048 --format json").out);
    CHECK(heads["problem"]["q_heads"] == 128);
    CHECK(heads["problem"]["kv_heads"] == 8);
    const auto bad = run_leanattn("schedule --model llama-3-70b --heads 12 --ctx 2048");
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--heads 12") && Catch::Contains("llama-3-70b has 8 KV heads"));
    // --kv-heads alone that does not divide the model's heads: the model's heads are named, not a --heads never typed.
    const auto kv = run_leanattn("schedule --model falcon-7b --kv-heads 2");
    CHECK(kv.exit_code == 2);
    CHECK_THAT(kv.err, Catch::Contains("--kv-heads 2") && Catch::Contains("falcon-7b has 71 query heads") && !Catch::Contains("--heads 71"));
}

TEST_CASE("a sweep of one strategy prints its times, without speedup columns it has no baseline for") {
    const auto one = run_leanattn("sweep --vary ctx --values 1k,4k --strategy no-split");
    REQUIRE(one.exit_code == 0);
    CHECK_THAT(one.out, Catch::Contains("no-split_us") && !Catch::Contains("LA/FD") && !Catch::Contains(" - "));
    CHECK_THAT(run_leanattn("sweep --vary ctx --values 1k,4k").out, Catch::Contains("LA/FD") && Catch::Contains("LA/FA2"));
}

TEST_CASE("bad input exits 2 with `error: ...` naming the flag") {
    const std::pair<const char*, const char*> cases[] = {
        {"schedule --batch 0", "--batch"},
        {"schedule --batch -3", "--batch"},
        {"schedule --heads abc", "--heads"},
        {"schedule --heads 32 --kv-heads 5", "--kv-heads"},
        {"schedule --batch 3 --ctx 10,20", "--ctx"},
        {"schedule --ctx 0", "--ctx"},
        {"schedule --ctx 100,", "--ctx"},
        {"schedule --device no-such-gpu", "--device"},
        {"schedule --model no-such-model", "--model"},
        {"schedule --device /nonexistent/dev.json", "--device"},
        {"schedule --tile 100", "--tile"},
        {"schedule --tile 0", "--tile"},
        {"schedule --ctx 99999999999999999999", "--ctx"},
        {"schedule --heads 4611686018427387904 --ctx 4611686018427387904", "overflow"},
        {"schedule --splits 4", "--splits"},
        {"schedule --strategy no-split --splits 2", "--splits"},
        {"schedule --strategy bogus", "--strategy"},
        {"sweep --vary ctx --values 1k,4k --strategy no-split --format svg", "--format svg"},
        {"schedule --format pdf", "--format"},
        {"schedule --no-such-flag", "no-such-flag"},
        {"schedule --grid 1000 --device paper-5sm --ctx 100000 --stream-k-rule paper", "deadlock"},
        {"schedule --stream-k-rule bogus", "--stream-k-rule"},
        {"schedule --stream-k-rule paper --snap 2", "--snap"},
        {"schedule --strategy fixed-split --snap 2", "--snap"},
        {"schedule --strategy no-split --stream-k-rule paper", "--stream-k-rule"},
        {"schedule --snap -1", "--snap"},
        {"schedule --snap many", "--snap"},
        {"nosuchcommand", "nosuchcommand"},
        // A folder (or no file) where a file is read: refused by name, not failed inside the reader.
        {"simulate --trace /tmp --kernel leanattn-h100", "--trace /tmp (is a folder"},
        {"simulate --trace /nonexistent/trace.json --kernel leanattn-h100", "--trace /nonexistent/trace.json (no such file"},
        {"calibrate --measured /tmp -o /tmp/leanattn-never-written.json", "--measured /tmp (is a folder"},
        {"simulate --kernel /tmp", "--kernel /tmp (is a folder"},
        {"simulate --trace /dev/zero --kernel leanattn-h100", "--trace /dev/zero (is not a file or a pipe"},
        // A list's bad item: the whole list and which item, as given.
        {"schedule --batch 3 --ctx 100,,200", "--ctx 100,,200 (item 2 \"\": not an integer)"},
        {"schedule --ctx ,100", "--ctx ,100 (item 1"},
        {"sweep --vary ctx --values 1k,1kk", "--values 1k,1kk (item \"1kk\": not an integer)"},
        {"sweep --vary ctx --values 1.5k", "item \"1.5k\""},
    };
    for (const auto& [args, named] : cases) {
        CAPTURE(args);
        const auto r = run_leanattn(args);
        CHECK(r.exit_code == 2);
        CHECK(r.err.rfind("error: ", 0) == 0);
        CHECK_THAT(r.err, Catch::Contains(named));
        CHECK(r.out.empty());
    }
}

TEST_CASE("a GPU's CUDA name picks the device file whose cuda_names it holds (the longest match), else none: then h100-sxm") {
    using leanattn::app::default_device_for_gpu;
    using leanattn::app::device_for_gpu;
    CHECK(device_for_gpu("NVIDIA H200") == "h200");
    CHECK(device_for_gpu("NVIDIA H200 NVL") == "h200");
    CHECK(device_for_gpu("NVIDIA H100 80GB HBM3") == "h100-sxm");
    CHECK(device_for_gpu("NVIDIA A100-SXM4-80GB") == "a100-80gb");
    CHECK(device_for_gpu("NVIDIA H100 PCIe").empty());  // another memory than h100-sxm's
    CHECK(device_for_gpu("NVIDIA GeForce RTX 4090").empty());
    CHECK(default_device_for_gpu("NVIDIA GeForce RTX 4090") == "h100-sxm");
    CHECK(default_device_for_gpu("NVIDIA H200") == "h200");
    const auto listed = nlohmann::json::parse(run_leanattn("devices --format json").out);
    for (const auto& d : listed["devices"]) {
        if (d["name"] == "h200") CHECK(d["cuda_names"] == nlohmann::json::array({"H200"}));
    }

    // In a data folder of its own: the longer of two matching names wins, whichever file comes first.
    const std::string dir = "/tmp/leanattn-cuda-names";
    std::filesystem::create_directories(dir + "/devices");
    std::string text = slurp(std::string(LEANATTN_SOURCE_DIR) + "/data/devices/h100-sxm.json");
    const auto named = [&](const std::string& name, const std::string& cuda_names) {
        std::string t = text;
        t.replace(t.find("\"h100-sxm\""), 10, "\"" + name + "\"");
        const std::size_t from = t.find("\"cuda_names\"");
        t.replace(from, t.find(']', from) + 1 - from, "\"cuda_names\": " + cuda_names);
        std::ofstream(dir + "/devices/" + name + ".json") << t;
    };
    named("a-any-h100", "[\"H100\"]");
    named("b-h100-sxm", "[\"H100 80GB\"]");
    named("c-bad", "\"H100 80GB HBM3\"");  // not an array: refused, passed over
    setenv("LEANATTN_DATA", dir.c_str(), 1);
    CHECK(device_for_gpu("NVIDIA H100 80GB HBM3") == "b-h100-sxm");
    CHECK(device_for_gpu("NVIDIA H100 PCIe") == "a-any-h100");
    unsetenv("LEANATTN_DATA");
    const auto r = run_leanattn("schedule --device " + dir + "/devices/c-bad.json");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("cuda_names") && Catch::Contains("array of strings"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a malformed device file is refused, naming the file and what is wrong") {
    const std::string path = "/tmp/leanattn-bad-device.json";
    {
        std::ofstream(path) << "{ \"name\": \"x\", \"sms\": \"many\" }";
    }
    auto r = run_leanattn("schedule --device " + path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(path) && Catch::Contains("sms"));
    {
        std::ofstream(path) << "{ not json";
    }
    r = run_leanattn("schedule --device " + path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("malformed JSON"));
    // The shipped h100-sxm file with `from` replaced by `to`, written to `path`.
    const auto h100_with = [&](const std::string& from, const std::string& to) {
        std::string text = slurp(std::string(LEANATTN_SOURCE_DIR) + "/data/devices/h100-sxm.json");
        REQUIRE(text.find(from) != std::string::npos);
        text.replace(text.find(from), from.size(), to);
        std::ofstream(path) << text;
    };
    h100_with("\"name\": \"h100-sxm\"", "\"name\": \"h100\\nsxm\"");  // a newline in its name: refused (it would be printed raw)
    r = run_leanattn("schedule --device " + path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(path) && Catch::Contains("\"name\" must not hold control characters"));
    // A kernel model the file names that does not exist: auto says the file's key named it, not a --kernel flag.
    h100_with("\"kernel\": \"leanattn-h100\"", "\"kernel\": \"no-such-kernel\"");
    r = run_leanattn("schedule --strategy auto --device " + path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("its \"kernel\" no-such-kernel") && Catch::Contains("unknown kernel") && !Catch::Contains("--kernel"));
    // A misspelt key would leave its default in place without a word: refused, the nearest known key named; any
    // other key not of the format is refused too.
    h100_with("\"row_block_reread\"", "\"row_blok_reread\"");
    r = run_leanattn("schedule --device " + path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown key \"row_blok_reread\"; did you mean \"row_block_reread\"?"));
    h100_with("\"sms\": 132,", "\"sms\": 132, \"notes\": \"mine\",");
    r = run_leanattn("schedule --device " + path);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown key \"notes\": data/devices/README.md lists the keys"));
    std::remove(path.c_str());
}

TEST_CASE("schedule says narrow_streams (JSON) and half its warps (text) where the GPU kernel reads a plan with half its warps, and only there") {
    const auto no_split = run_leanattn("schedule --model llama-3-8b --batch 8 --ctx 4096 --strategy no-split --ctas-per-sm 1 --format json");
    REQUIRE(no_split.exit_code == 0);
    CHECK(nlohmann::json::parse(no_split.out).value("narrow_streams", false));  // 64 whole outputs on 132 SMs
    const auto stream_k = run_leanattn("schedule --model llama-3-8b --batch 8 --ctx 4096 --ctas-per-sm 1 --format json");
    REQUIRE(stream_k.exit_code == 0);
    CHECK_FALSE(nlohmann::json::parse(stream_k.out).contains("narrow_streams"));  // two CTAs on every output
    // The text says it too, and only there.
    const auto text = run_leanattn("schedule --model llama-3-8b --batch 8 --ctx 4096 --strategy no-split --ctas-per-sm 1");
    CHECK_THAT(text.out, Catch::Contains("half its warps"));
    CHECK_THAT(run_leanattn("schedule --model llama-3-8b --batch 8 --ctx 4096 --ctas-per-sm 1").out, !Catch::Contains("half its warps"));
}

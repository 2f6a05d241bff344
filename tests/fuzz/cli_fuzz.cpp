// cli_fuzz.cpp — random argument vectors against the real `leanattn` binary: nothing a user types may crash,
// hang or half-write.
//
//   cli_fuzz BINARY POOLS.json DEVICE.json [--cases N] [--seed S] [--jobs J] [--timeout-s T]
//
// Each case is a seeded random command: any subcommand, each flag present or not, its value valid (from the
// pools' small valid values), an edge integer or garbage; repeated flags, stray words, unknown flags; broken
// device and model files (a folder, empty, 2 MB, a FIFO, truncated, duplicate or missing keys, values out of
// range); -o into a folder, a missing folder, /dev/full, or over an existing file. Every case must:
//   exit 0, 1 or 2 (no signal, never 3: an internal error is a bug), within the time-out;
//   on exit 2: print an `error: ` line on stderr and nothing on stdout;
//   on exit 0: print no `error: ` line;
//   leave an existing -o file untouched unless it exits 0 or 1, and no temporary file behind.
// Runs use LEANATTN_MAX_MEMORY=64M and LEANATTN_MAX_WORK=5e8 (unless a case sets its own), so no valid
// case is slow. A failure prints the command to replay; the seed replays the whole run.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Pools {
    std::map<std::string, std::vector<std::string>> valid;
    std::vector<std::string> edges, garbage, strategies, rules, formats, dtypes, layouts, devices, models, varies;
};

std::vector<std::string> strings(const json& j) { return j.get<std::vector<std::string>>(); }

Pools load_pools(const std::string& path) {
    std::ifstream in(path);
    const json j = json::parse(in);
    Pools p;
    for (const auto& [flag, values] : j.at("valid").items()) p.valid[flag] = strings(values);
    p.edges = strings(j.at("edge_integers"));
    p.garbage = strings(j.at("garbage"));
    p.strategies = strings(j.at("strategies"));
    p.rules = strings(j.at("stream_k_rules"));
    p.formats = strings(j.at("formats"));
    p.dtypes = strings(j.at("dtypes"));
    p.layouts = strings(j.at("layouts"));
    p.devices = strings(j.at("devices"));
    p.models = strings(j.at("models"));
    p.varies = strings(j.at("varies"));
    return p;
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Broken and extreme device and model files, and the -o targets, in a fresh folder. Returns the file paths.
std::vector<std::string> make_bad_files(const fs::path& dir, const std::string& device_file) {
    std::ifstream in(device_file);
    const json good = json::parse(in);
    const std::string text = good.dump(1);
    std::vector<std::string> out;
    const auto add = [&](const std::string& name, const std::string& body) {
        write_file(dir / name, body);
        out.push_back((dir / name).string());
    };
    const auto with = [&](const std::string& key, const json& value) {
        json j = good;
        j[key] = value;
        return j.dump();
    };
    fs::create_directories(dir / "folder.json");
    out.push_back((dir / "folder.json").string());
    out.push_back(dir.string() + "/");
    add("valid.json", text);
    add("empty.json", "");
    add("spaces.json", "  \n\t ");
    add("huge.json", std::string(2 << 20, ' ') + text);
    add("truncated.json", text.substr(0, text.size() / 2));
    add("array.json", "[" + text + "]");
    add("two.json", text + text);
    add("duplicate.json", "{\"sms\": 1," + text.substr(1));
    json missing = good;
    missing.erase("sms");
    add("missing.json", missing.dump());
    add("nan.json", "{\"sms\": NaN}");
    add("deep.json", std::string(10000, '[') + std::string(10000, ']'));
    add("sms-1e8.json", with("sms", 100000000));
    add("sms-2e31.json", with("sms", 2147483648LL));
    add("sms-float.json", with("sms", 132.5));
    add("sms-neg.json", with("sms", -1));
    add("ctas-1025.json", with("ctas_per_sm", 1025));
    add("bw-0.json", with("hbm_bandwidth_gb_per_s", 0));
    add("bw-tiny.json", with("hbm_bandwidth_gb_per_s", 1e-300));
    add("bif-tiny.json", with("bytes_in_flight_per_sm", 1e-300));
    add("lat-tiny.json", with("mem_latency_ns", 1e-300));
    add("launch-huge.json", with("launch_overhead_ns", 1e308));
    add("knee-0.json", with("latency_knee_exponent", 0));
    add("partitions.json", with("hbm_partitions", 1000));
    add("string-sms.json", with("sms", "132"));
    add("name-empty.json", with("name", ""));
    add("model-gqa.json", R"({"name": "bad", "q_heads": 32, "kv_heads": 5, "head_dim": 128})");
    add("model-huge.json", R"({"name": "huge", "q_heads": 4294967296, "kv_heads": 1, "head_dim": 1})");
    add("model-ok.json", R"({"name": "ok", "q_heads": 8, "kv_heads": 2, "head_dim": 64})");
    const fs::path fifo = dir / "fifo.json";
    if (::mkfifo(fifo.c_str(), 0600) == 0) out.push_back(fifo.string());
    add("unreadable.json", text);
    fs::permissions(dir / "unreadable.json", fs::perms::none);
    return out;
}

class Generator {
public:
    Generator(const Pools& pools, std::vector<std::string> files, std::uint64_t seed) : p_(pools), files_(std::move(files)), rng_(seed) {}

    // A command; `out_file` is where an -o that should hold a sentinel points.
    std::vector<std::string> next(const std::string& out_file) {
        static const std::vector<std::string> subcommands = {"schedule", "schedule", "simulate", "simulate", "sweep", "cpu", "cpu",
                                                             "devices", "models", "cuda", "bogus"};
        std::vector<std::string> a;
        const std::string sub = pick(subcommands);
        a.push_back(sub);
        if (sub == "cuda") a.push_back(pick({"validate", "bench", "other"}));
        const bool problem = sub != "devices" && sub != "models" && sub != "bogus";
        if (problem) {
            for (const char* flag : {"batch", "heads", "kv-heads", "head-dim", "ctx", "q-len", "tile"}) maybe_integer(a, flag, 0.4);
            if (chance(0.5)) a.insert(a.end(), {"--strategy", pick(p_.strategies)});
            maybe_integer(a, "splits", 0.15);
            maybe_integer(a, "grid", 0.1);
            maybe_integer(a, "snap", 0.05);
            if (chance(0.05)) a.insert(a.end(), {"--stream-k-rule", pick(p_.rules)});
            maybe_integer(a, "ctas-per-sm", 0.1);
            maybe_integer(a, "tile-rows", 0.1);
            if (chance(0.1)) a.insert(a.end(), {"--plan-for", pick({"lengths", "capacity", "capacity", "other", ""})});
            if (chance(0.3)) a.insert(a.end(), {"--device", chance(0.5) ? pick(files_) : pick(p_.devices)});
            if (chance(0.15)) a.insert(a.end(), {"--model", chance(0.4) ? pick(files_) : pick(p_.models)});
            maybe_integer(a, "max-memory", 0.05);
            maybe_integer(a, "max-work", 0.05);
        }
        if (sub == "sweep") {
            if (chance(0.9)) a.insert(a.end(), {"--vary", pick(p_.varies)});
            maybe_integer(a, "values", 0.95);
            if (chance(0.5)) a.push_back("--no-progress");
        }
        if (sub == "cpu" || sub == "cuda" || sub == "simulate" || sub == "sweep") {
            if (chance(0.3)) a.insert(a.end(), {"--dtype", pick(p_.dtypes)});
        }
        if (sub == "cpu" || sub == "cuda") {
            if (chance(0.3)) a.insert(a.end(), {"--layout", pick(p_.layouts)});
            for (const char* flag : {"block-size", "threads", "repeat", "seed"}) maybe_integer(a, flag, 0.15);
        }
        if (sub == "schedule" && chance(0.2)) a.push_back("--check");
        if (chance(0.4)) a.insert(a.end(), {"--format", pick(p_.formats)});
        if (chance(0.25)) {
            a.push_back("-o");
            a.push_back(pick({out_file, out_file, "-", "", files_.front(), "/dev/full", "/dev/null", out_file + ".missing/x", files_.front() + "/x"}));
        }
        if (chance(0.03)) a.push_back(pick({"--bogus", "--chec", "--b", "-x", "--"}));
        if (chance(0.03) && a.size() > 2) a.push_back(a[1 + rng_() % (a.size() - 1)]);  // a repeated word or flag
        if (chance(0.02)) a.push_back("stray");
        if (chance(0.01)) a.push_back("--help");
        return a;
    }

private:
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    std::string pick(const std::vector<std::string>& v) { return v[rng_() % v.size()]; }

    // --flag with a value: valid 80%, an edge integer 10%, garbage 10%.
    void maybe_integer(std::vector<std::string>& a, const std::string& flag, double p) {
        if (!chance(p)) return;
        const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
        const std::string value = r < 0.8 ? pick(p_.valid.at(flag)) : r < 0.9 ? pick(p_.edges) : pick(p_.garbage);
        a.push_back("--" + flag);
        a.push_back(value);
    }

    const Pools& p_;
    std::vector<std::string> files_;
    std::mt19937_64 rng_;
};

std::string quoted(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv) {
        s += " '";
        for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
        s += "'";
    }
    return s;
}

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Running {
    pid_t pid = -1;
    std::vector<std::string> argv;
    std::chrono::steady_clock::time_point started;
    fs::path slot;
};

pid_t spawn(const std::string& binary, const std::vector<std::string>& args, const fs::path& slot) {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    const int out = ::open((slot / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open((slot / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: cli_fuzz BINARY POOLS.json DEVICE.json [--cases N] [--seed S] [--jobs J] [--timeout-s T]\n";
        return 2;
    }
    const std::string binary = argv[1];
    int cases = 2000, jobs = 2;
    double timeout_s = 5;
    std::uint64_t seed = 1;
    for (int i = 4; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--cases") cases = std::atoi(argv[i + 1]);
        else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (flag == "--jobs") jobs = std::max(1, std::atoi(argv[i + 1]));
        else if (flag == "--timeout-s") timeout_s = std::atof(argv[i + 1]);
    }
    const Pools pools = load_pools(argv[2]);
    char dir_template[] = "/tmp/leanattn-fuzz-XXXXXX";
    const fs::path dir = ::mkdtemp(dir_template);
    std::vector<std::string> files = make_bad_files(dir / "files", argv[3]);
    Generator gen(pools, files, seed);
    ::setenv("LEANATTN_MAX_MEMORY", "64M", 1);
    ::setenv("LEANATTN_MAX_WORK", "5e8", 1);
    ::setenv("OMP_NUM_THREADS", "2", 1);

    const std::string sentinel = "SENTINEL: an earlier result\n";
    std::vector<Running> running(static_cast<std::size_t>(jobs));
    for (int j = 0; j < jobs; ++j) {
        running[j].slot = dir / ("slot" + std::to_string(j));
        fs::create_directories(running[j].slot);
    }
    std::map<int, int> by_exit;
    int started = 0, finished = 0, failures = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const auto fail = [&](const Running& r, const std::string& why, const std::string& err) {
        ++failures;
        if (failures <= 20) std::cout << "FAIL: " << why << "\n  replay: leanattn" << quoted(r.argv) << "\n  stderr: " << err.substr(0, 400) << "\n";
    };
    const auto finish = [&](Running& r, int status) {
        ++finished;
        const std::string out = read_all(r.slot / "stdout"), err = read_all(r.slot / "stderr");
        const fs::path target = r.slot / "out.txt";
        const bool error_line = err.rfind("error: ", 0) == 0 || err.find("\nerror: ") != std::string::npos;
        if (status < 0) {
            fail(r, "timed out after " + std::to_string(timeout_s) + " s", err);
        } else if (WIFSIGNALED(status)) {
            fail(r, std::string("killed by signal ") + strsignal(WTERMSIG(status)), err);
        } else {
            const int code = WEXITSTATUS(status);
            ++by_exit[code];
            if (code != 0 && code != 2) fail(r, "exit " + std::to_string(code) + " (expected 0 or 2 on random input)", err);
            if (code == 2 && !out.empty()) fail(r, "exit 2 with output on stdout", err);
            if (code == 2 && !error_line) fail(r, "exit 2 without an `error: ` line", err);
            if (code == 0 && error_line) fail(r, "exit 0 with an `error: ` line", err);
            if (code != 0 && code != 1 && read_all(target) != sentinel) fail(r, "the existing -o file changed on a failed run", err);
        }
        for (const auto& entry : fs::directory_iterator(r.slot)) {
            if (entry.path().filename().string().rfind(".out.txt.tmp", 0) == 0) fail(r, "a temporary file was left behind", err);
        }
        r.pid = -1;
    };

    while (finished < cases) {
        for (Running& r : running) {
            if (r.pid == -1 && started < cases) {
                write_file(r.slot / "out.txt", sentinel);
                r.argv = gen.next((r.slot / "out.txt").string());
                r.started = std::chrono::steady_clock::now();
                r.pid = spawn(binary, r.argv, r.slot);
                ++started;
            }
        }
        bool any = false;
        for (Running& r : running) {
            if (r.pid == -1) continue;
            int status = 0;
            const pid_t done = ::waitpid(r.pid, &status, WNOHANG);
            if (done == r.pid) {
                finish(r, status);
                any = true;
            } else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count() > timeout_s) {
                ::kill(r.pid, SIGKILL);
                ::waitpid(r.pid, &status, 0);
                finish(r, -1);
                any = true;
            }
        }
        if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "cli_fuzz: " << cases << " cases (seed " << seed << ", " << jobs << " at a time) in " << seconds << " s;";
    for (const auto& [code, count] : by_exit) std::cout << " exit " << code << ": " << count << ";";
    std::cout << " failures: " << failures << "\n";
    fs::permissions(dir / "files" / "unreadable.json", fs::perms::owner_all);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return failures == 0 ? 0 : 1;
}

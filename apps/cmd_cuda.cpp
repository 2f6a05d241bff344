// cmd_cuda.cpp — `leanattn cuda validate|bench`: flags in, cuda/harness.hpp does the work, text or JSON out
// (`--format json` prints JSON only). What each measures: cuda/harness.hpp.
#include "cmd_cuda.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <utility>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "cuda/decode.hpp"
#include "cuda/plan_visits.cuh"
#include "cuda_trace_json.hpp"
#include "data_catalog.hpp"
#include "output_file.hpp"
#include "problem_json.hpp"
#include "progress_bar.hpp"

namespace leanattn::app {

namespace {

// No usable GPU: refused once for a whole --shapes sweep, not line by line.
struct NoDevice : InputError {
    using InputError::InputError;
};


using json = nlohmann::ordered_json;

// The kind of step, as --lengths names it (the JSON's "lengths"), and as the text report says where the lengths are.
const char* lengths_name(const cuda::HarnessCase& c) { return c.staged ? "staged" : c.host_lengths ? "host" : "device"; }
const char* lengths_place(const cuda::HarnessCase& c) { return c.staged ? "host, the table staged" : c.host_lengths ? "host" : "device"; }

std::string describe_layout(const cuda::HarnessCase& c) {
    std::string s(cache_layout_name(c.layout));
    if (c.layout == CacheLayout::paged) s += " (block " + std::to_string(c.block_size) + ")";
    return s;
}

std::string describe_device(const DeviceSpec& d) {
    return d.name + " (" + std::to_string(d.sms) + " SMs x " + std::to_string(d.ctas_per_sm) + " CTAs/SM)";
}

json device_json(const DeviceSpec& d) { return {{"name", d.name}, {"sms", d.sms}, {"ctas_per_sm", d.ctas_per_sm}}; }

}  // namespace

int run_cuda_validate(const CudaOptions& opt, std::ostream& out) {
    const cuda::HarnessCase& c = opt.harness;
    const cuda::Validation v = cuda::validate(c);
    json results = json::array();
    if (opt.format == "text") {
        out << "validate on " << describe_device(v.device) << " (timing keys of " << opt.device_file << "), " << dtype_name(c.dtype) << ", " << describe_layout(c)
            << " K/V, lengths on the " << lengths_place(c) << "; tolerance rel L2 <= " << v.tolerance << ", LSE within " << lse_tolerance << "\n";
    }
    for (const cuda::StrategyCheck& r : v.results) {
        if (opt.format == "text") {
            out << std::left << std::setw(12) << strategy_name(r.strategy) << " grid " << std::setw(6) << r.grid << " rel_l2 " << std::scientific
                << std::setprecision(2) << r.worst.rel_l2 << " max_abs " << r.worst.max_abs << " lse_max_abs " << r.worst.lse_max_abs
                << std::defaultfloat << " non_finite " << r.worst.non_finite << (r.pass ? "  ok" : "  FAILED") << "\n";
        }
        results.push_back({{"strategy", std::string(strategy_name(r.strategy))}, {"grid", r.grid}, {"rel_l2_err", r.worst.rel_l2},
                           {"max_abs_err", r.worst.max_abs}, {"lse_max_abs_err", r.worst.lse_max_abs}, {"non_finite", r.worst.non_finite}, {"ok", r.pass}});
    }
    if (opt.format == "json") {
        out << json{{"device", v.device.name}, {"device_file", opt.device_file}, {"gpu", device_json(v.device)}, {"problem", problem_to_json(c.problem)}, {"dtype", std::string(dtype_name(c.dtype))},
                    {"layout", std::string(cache_layout_name(c.layout))}, {"block_size", c.block_size}, {"lengths", lengths_name(c)}, {"tolerance", v.tolerance}, {"ok", v.ok()},
                    {"results", results}}.dump(2)
            << "\n";
    }
    return v.ok() ? exit_ok : exit_check_failed;
}

int run_cuda_bench(const CudaOptions& opt, std::ostream& out) {
    const cuda::HarnessCase& c = opt.harness;
    const cuda::Benchmark b = cuda::bench(c, opt.repeat, !opt.trace_path.empty());
    if (!opt.trace_path.empty()) write_output(opt.trace_path, [&](std::ostream& file) { file << cuda_trace_json(c, b).dump(1) << "\n"; });
    json results = json::array();
    if (opt.format == "text") {
        out << "bench on " << describe_device(b.device) << " (timing keys of " << opt.device_file << "), " << dtype_name(c.dtype) << ", " << describe_layout(c) << " K/V, lengths on the "
            << lengths_place(c) << ": copy " << std::fixed
            << std::setprecision(0) << b.copy_gbps << " GB/s, K+V " << std::setprecision(1) << b.kv_bytes / 1e6 << " MB, floor "
            << std::setprecision(2) << b.floor_us << " us; median of " << opt.repeat << " CUDA-graph replays, L2 flushed before each\n"
            << std::left << std::setw(12) << "strategy" << std::right << std::setw(7) << "grid" << std::setw(9) << "launch" << std::setw(11)
            << "median_us" << std::setw(9) << "GB/s" << std::setw(10) << "of_floor" << "\n";
    }
    for (const cuda::StrategyTiming& r : b.results) {
        if (opt.format == "text") {
            out << std::left << std::setw(12) << strategy_name(r.strategy) << std::right << std::setw(7) << r.grid << std::setw(9) << r.launches
                << std::setw(11) << std::setprecision(1) << r.median_us << std::setw(9) << std::setprecision(0) << r.gbps << std::setw(10)
                << std::setprecision(2) << r.fraction_of_floor << "\n";
        }
        results.push_back({{"strategy", std::string(strategy_name(r.strategy))}, {"grid", r.grid}, {"launches", r.launches}, {"splits", r.splits},
                           {"snap", r.snap}, {"narrow_streams", r.narrow_streams}, {"median_us", r.median_us}, {"gbps", r.gbps}, {"fraction_of_floor", r.fraction_of_floor}});
    }
    if (opt.format == "json") {
        out << json{{"device", b.device.name}, {"device_file", opt.device_file}, {"gpu", device_json(b.device)}, {"dtype", std::string(dtype_name(c.dtype))},
                    {"layout", std::string(cache_layout_name(c.layout))}, {"block_size", c.block_size}, {"lengths", lengths_name(c)}, {"repeat", opt.repeat},
                    {"copy_gbps", b.copy_gbps}, {"kv_bytes", b.kv_bytes}, {"floor_us", b.floor_us}, {"problem", problem_to_json(c.problem)},
                    {"results", results}}.dump(2)
            << "\n";
    }
    return exit_ok;
}

namespace {

// One `cuda validate|bench` with its flags; `out_override` replaces -o (the --shapes loop collects each line's JSON).
int run_case(const Args& args, std::ostream* out_override) {
    const bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
    if (help || args.empty() || (args[0] != "validate" && args[0] != "bench")) {
        if (help) {
            commit_output("", "usage: leanattn cuda validate [problem flags] [--dtype fp16|bf16] [--layout padded|token-major|paged|ragged]\n"
                         "                [--block-size N] [--seed N] [--lengths device|host|staged]\n"
                         "       leanattn cuda bench    (the same flags) [--repeat N] [--trace FILE] [--shapes FILE]\n\n"
                         "  validate  run every strategy on this GPU and check it against a float64 reference (exit 1 over tolerance)\n"
                         "  bench     time every strategy (CUDA-graph replays after an L2 flush) against the memory floor\n\n"
                         "leanattn cuda validate --help and leanattn cuda bench --help list the flags.\n");
            return exit_ok;
        }
        throw InputError("cuda " + (args.empty() ? std::string() : args[0]), "expected `leanattn cuda validate` or `leanattn cuda bench`");
    }
    const bool validate = args[0] == "validate";
    ProblemFlags flags;
    flags.strategy = "all";
    flags.device_default_shown = "this GPU's file, else h100-sxm";
    std::string dtype = "fp16", layout = "padded", block_size = "16", seed = "1", repeat = "100", trace, lengths = "device";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, "text|json", true);
    desc.add_options()("dtype", po::value(&dtype)->default_value(dtype), "fp16|bf16 (q, K, V and out; fp32 accumulation)")(
        "layout", po::value(&layout)->default_value(layout),
        "K/V cache: padded (batch, kv_heads, N, d), token-major (batch, N, kv_heads, d), paged (blocks, block_size, kv_heads, d) "
        "with a shuffled block table, or ragged (kv_heads, total_ctx, d) with cu_seqlens")(
        "block-size", po::value(&block_size)->default_value(block_size), "paged layout: tokens per cache block (1..256)")(
        "seed", po::value(&seed)->default_value(seed), "input generator seed (also shuffles the paged block ids)")(
        "lengths", po::value(&lengths)->default_value(lengths),
        "device: each step reads cache_seqlens on the GPU (a prologue kernel derives the plan's work from them, so one "
        "captured step serves every length); host: the host walks the plan at the lengths and passes every CTA's segments "
        "in the launch (no prologue: ~3 us less per step; decode.hpp); staged: the host's table copied into the workspace "
        "before the step, which bench captures alone (how a graph replays a host-lengths step while the lengths change). "
        "--strategy auto weighs plans with the device's kernel model for this kind of step (staged: host's)");
    if (!validate) {
        desc.add_options()("repeat", po::value(&repeat)->default_value(repeat), "CUDA-graph replays per strategy (the median is reported)")(
            "trace", po::value(&trace), "also write a per-CTA trace of one untimed run per strategy to FILE (JSON, docs/trace.md)")(
            "shapes", po::value<std::string>(), "FILE of problem lines: time each in this one process (see above)");
    }
    po::variables_map vm;
    if (!parse_or_help(Args(args.begin() + 1, args.end()), desc, vm, std::string("leanattn cuda ") + args[0] + " [problem flags]",
                       validate ? "Runs each strategy's plan on this GPU through the decode API (cuda/decode.hpp) on fresh random inputs in\n"
                                  "the chosen cache layout, output and LSE poisoned with NaN before each of 3 runs, and checks it against a\n"
                                  "float64 reference of the same rounded inputs: rel. L2 <= 1e-3 (fp16) or 8e-3 (bf16), the LSE within 1e-4,\n"
                                  "no NaN. Exit 1 over.\n"
                                  "The plan's device is this GPU: its SM count and the kernel's CTAs per SM; its timing keys (and auto's\n"
                                  "kernel model) come from --device, by default the device file that names this GPU (`leanattn devices`),\n"
                                  "else h100-sxm.\n\n"
                                  "  leanattn cuda validate --batch 3 --heads 32 --kv-heads 8 --ctx 4000,100,70000 --layout paged --block-size 16"
                                : "Times one decode step per strategy: captured once in a CUDA graph, replayed --repeat times with the L2\n"
                                  "flushed before each replay; prints the median in us, GB/s of K and V, and the fraction of the floor\n"
                                  "(K and V bytes / measured device-to-device copy bandwidth). --format json prints JSON only. The plans'\n"
                                  "timing keys and auto's kernel model come from --device, by default the device file that names this GPU\n"
                                  "(`leanattn devices`), else h100-sxm.\n\n"
                                  "  leanattn cuda bench --batch 6 --heads 48 --head-dim 64 --ctx 65536 --format json\n"
                                  "  leanattn cuda bench --model llama-3-8b --ctx 131072 --strategy stream-k --trace trace.json\n\n"
                                  "--shapes FILE times many problems in one process (a sweep): each line of FILE holds one problem's flags\n"
                                  "(# starts a comment); every other flag given applies to every line (a flag may not be in both); each\n"
                                  "line's result is one line of JSON (the --format json object, plus \"flags\"), or {\"flags\", \"error\"}\n"
                                  "for a line refused (the run goes on; exit 2 at the end; without a usable GPU it stops at once). Progress\n"
                                  "goes to stderr.\n\n"
                                  "  leanattn cuda bench --shapes data/calibration/train-shapes.txt -o h100-train.jsonl")) {
        return exit_ok;
    }
    if (lengths != "device" && lengths != "host" && lengths != "staged") throw InputError("--lengths " + lengths, "expected device, host or staged");
    flags.step_lengths = lengths == "device" ? StepLengths::device : StepLengths::host;  // --strategy auto weighs plans for them
    // Without --device, the device file that describes this GPU (its "cuda_names"), else h100-sxm: the plans' timing
    // keys and auto's kernel model are then this GPU's.
    if (vm["device"].defaulted() && cuda::device_available(nullptr)) {
        const std::string gpu = cuda::current_device_name(), described = device_for_gpu(gpu);
        static bool noted = false;  // once per process: a --shapes sweep runs this per line
        if (described.empty() && !std::exchange(noted, true)) {
            std::cerr << "note: no file of data/devices describes the " << gpu << " (cuda_names); its plans take h100-sxm's timing keys "
                      << "and kernel model (--device FILE to give this GPU's)\n";
        }
        flags.device = default_device_for_gpu(gpu);
    }
    const ResolvedProblem input = resolve_problem(flags, vm, "text|json", true);
    CudaOptions opt;
    opt.format = input.format;
    opt.device_file = input.device.name;
    cuda::HarnessCase& c = opt.harness;
    c.problem = input.problem;
    c.plan = input.plan;
    c.strategies = input.strategies;
    c.timing = input.device.timing;
    c.dtype = dtype_flag("--dtype", dtype, {DType::fp16, DType::bf16});
    c.layout = layout_flag("--layout", layout);
    c.block_size = parse_positive("--block-size", block_size);
    if (c.block_size > 256) throw InputError("--block-size " + block_size, "must lie in 1..256 tokens");
    c.seed = static_cast<std::uint64_t>(parse_positive("--seed", seed));
    c.host_lengths = lengths != "device";
    c.staged = lengths == "staged";
    if (c.staged && !trace.empty()) throw InputError("--trace", "traces steps of run() and host-lengths steps, not staged ones (--lengths device or host)");
    const std::int64_t replays = parse_positive("--repeat", repeat);
    if (replays > 100000) throw InputError("--repeat " + repeat, "at most 100000 replays");
    opt.repeat = static_cast<int>(replays);
    opt.trace_path = trace;
    cuda::check_supported(c.problem, c.dtype);  // names the API's parameters; main says the flags
    // Host memory: the inputs in their layout, their float64 reference, and the copies read back.
    Cost cost = host_tensors_cost(c.problem, dtype_bytes(c.dtype), c.layout, c.block_size);
    cost.add(host_tensors_cost(c.problem, dtype_bytes(c.dtype), c.layout, c.block_size));
    Cost plans;
    for (Strategy strategy : c.strategies) {
        PlanOptions one = c.plan;
        one.strategy = strategy;
        plans.then(plan_cost(c.problem, input.device, one));
    }
    cost.add(plans).add(decode_work(c.problem, 2));  // the reference (the GPU's runs cost the host nothing)
    check_cost(cost, input.limits);
    std::string why;
    if (!cuda::device_available(&why)) throw NoDevice("leanattn cuda", "no usable CUDA device: " + why);
    int status = exit_ok;
    if (out_override != nullptr) return validate ? run_cuda_validate(opt, *out_override) : run_cuda_bench(opt, *out_override);
    write_output(flags.output, [&](std::ostream& out) { status = validate ? run_cuda_validate(opt, out) : run_cuda_bench(opt, out); });
    return status;
}

// `cuda bench --shapes FILE [shared flags]`: one JSON line per problem line, in one process. A line its flags refuse
// becomes {flags, error} and the sweep goes on; no usable GPU stops it at the first line that would run, once.
int run_shapes(const Args& args) {
    Args shared;
    std::string path, output;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const bool has_value = i + 1 < args.size();
        if (args[i] == "--shapes" && has_value) path = args[++i];
        else if ((args[i] == "-o" || args[i] == "--output") && has_value) output = args[++i];
        else shared.push_back(args[i]);
    }
    if (path.empty()) throw InputError("--shapes", "needs a file of problem lines");
    const std::vector<std::string> lines = read_problem_lines(path, "--shapes");
    std::vector<std::string> shared_flags;  // the flags given for every line
    for (const std::string& w : shared) {
        if (w.rfind("--", 0) == 0) shared_flags.push_back(w.substr(0, w.find('=')));
    }
    bool refused = false;
    ProgressBar progress("cuda bench --shapes");
    write_output(output, [&](std::ostream& out) {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            Args one = {"bench"};
            for (const std::string& w : split_words(lines[i])) one.push_back(w);
            one.insert(one.end(), shared.begin(), shared.end());
            one.push_back("--format");
            one.push_back("json");
            std::ostringstream text;
            json record;
            try {
                for (const std::string& w : split_words(lines[i])) {
                    const std::string flag = w.substr(0, w.find('='));
                    if (std::find(shared_flags.begin(), shared_flags.end(), flag) != shared_flags.end()) {
                        throw InputError(flag, "is given both on this line and on the command line, which gives it for every line");
                    }
                }
                run_case(one, &text);
                record = json::parse(text.str());
                record["flags"] = lines[i];
            } catch (const NoDevice&) {
                throw;  // not this line's fault: every line would say it
            } catch (const std::exception& e) {  // InputError or a flag the parser refuses: report the line, go on
                refused = true;
                record = {{"flags", lines[i]}, {"error", e.what()}};
                std::cerr << "error: line " << i + 1 << " of " << path << ": " << e.what() << "\n";
            }
            out << record.dump() << "\n" << std::flush;
            progress.update(i + 1, lines.size());
        }
    });
    return refused ? exit_bad_input : exit_ok;
}

}  // namespace

int cuda_main(const Args& given) {
    // --shapes=FILE, -o=FILE and --output=FILE as two words: run_shapes reads its own flags by hand, and a joined
    // --shapes=FILE was passed on to a single bench, which never read FILE.
    Args args;
    for (const std::string& a : given) {
        const std::size_t eq = a.find('=');
        const std::string flag = a.substr(0, eq);
        if (eq != std::string::npos && (flag == "--shapes" || flag == "--output" || flag == "-o")) {
            args.push_back(flag);
            args.push_back(a.substr(eq + 1));
        } else if (a.size() > 2 && a.rfind("-o", 0) == 0 && a[2] != '=') {  // -oFILE
            args.push_back("-o");
            args.push_back(a.substr(2));
        } else {
            args.push_back(a);
        }
    }
    if (args.size() > 1 && args[0] == "bench" && std::find(args.begin(), args.end(), "--shapes") != args.end()) return run_shapes(args);
    return run_case(args, nullptr);
}

}  // namespace leanattn::app

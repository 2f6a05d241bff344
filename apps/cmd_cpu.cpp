// cmd_cpu.cpp — `leanattn cpu`: each strategy's plan executed on OpenMP threads (threads as SMs), checked
// against a float64 reference of the same rounded inputs, timed against this machine's read bandwidth.
#include "cmd_cpu.hpp"

#include <chrono>
#include <iomanip>
#include <sstream>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "core/saturating.hpp"
#include "core/validate.hpp"
#include "core/reference.hpp"
#include "cpu/executor.hpp"
#include "cpu/host_tensors.hpp"
#include "cpu/read_bandwidth.hpp"
#include "cpu/thread_stack.hpp"

namespace leanattn::app {

namespace {

std::string read_bandwidth_text(double gbps) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << gbps << " GB/s";
    return text.str();
}

}  // namespace

int run_cpu(const CpuOptions& opt, std::ostream& out) {
    const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    const Problem& problem = opt.input.problem;
    cpu::HostTensors tensors(problem, opt.dtype, opt.layout, opt.block_size);
    tensors.fill_random(opt.seed);
    const ReferenceOutput ref = reference_attention(problem, tensors.view());
    const double read_gbps = opt.measure_read ? cpu::measure_read_gbps(threads, opt.read_bytes) : 0.0;
    const double kv_bytes = static_cast<double>(problem.kv_bytes(dtype_bytes(opt.dtype)));

    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    bool ok = true;
    const bool text = opt.input.format == "text";
    if (text) {
        out << "cpu: " << threads << " threads, " << dtype_name(opt.dtype) << ", " << cache_layout_name(opt.layout) << " K/V of " << std::fixed << std::setprecision(1) << kv_bytes / 1e6
            << " MB; plain read bandwidth " << (opt.measure_read ? read_bandwidth_text(read_gbps) : "not measured") << "; tolerance rel L2 <= " << std::scientific
            << std::setprecision(0) << tolerance(opt.dtype) << ", LSE within " << lse_tolerance << "\n"
            << std::left << std::setw(12) << "strategy" << std::right << std::setw(6) << "grid" << std::setw(11) << "rel_l2" << std::setw(11)
            << "max_abs" << std::setw(10) << "ms" << std::setw(9) << "GB/s" << std::setw(9) << "of_read" << "  check\n";
    }
    for (Strategy strategy : opt.input.strategies) {
        const Schedule s = opt.input.make_plan(strategy);
        std::vector<std::byte> workspace(cpu::workspace_bytes(s));
        double best_ms = 1e300;
        Errors errors;
        for (int run = 0; run < opt.repeat; ++run) {  // poisoned before every run: a stale result cannot pass
            tensors.poison_outputs();
            const auto t0 = std::chrono::steady_clock::now();
            cpu::run(s, tensors.view(), workspace.data(), workspace.size(), threads);
            best_ms = std::min(best_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            const Errors e = compare_to_reference(problem, tensors.view(), ref);
            errors.rel_l2 = std::max(errors.rel_l2, e.rel_l2);
            errors.max_abs = std::max(errors.max_abs, e.max_abs);
            errors.lse_max_abs = std::max(errors.lse_max_abs, e.lse_max_abs);
            errors.non_finite += e.non_finite;
        }
        const bool pass = within_tolerance(errors, opt.dtype);
        ok = ok && pass;
        const double gbps = kv_bytes / (best_ms * 1e-3) / 1e9;
        if (text) {
            out << std::left << std::setw(12) << strategy_name(strategy) << std::right << std::setw(6) << s.grid << std::scientific
                << std::setprecision(2) << std::setw(11) << errors.rel_l2 << std::setw(11) << errors.max_abs << std::fixed << std::setprecision(2)
                << std::setw(10) << best_ms << std::setprecision(1) << std::setw(9) << gbps << std::setprecision(2) << std::setw(9)
                << (read_gbps > 0 ? gbps / read_gbps : 0.0) << "  " << (pass ? "ok" : errors.non_finite ? "FAILED (non-finite)" : errors.lse_max_abs > lse_tolerance ? "FAILED (LSE)" : "FAILED") << "\n";
        }
        results.push_back({{"strategy", std::string(strategy_name(strategy))}, {"grid", s.grid}, {"rel_l2_err", errors.rel_l2},
                           {"max_abs_err", errors.max_abs}, {"lse_max_abs_err", errors.lse_max_abs}, {"non_finite", errors.non_finite},
                           {"ms", best_ms}, {"gbps", gbps}, {"read_gbps", read_gbps}, {"threads", threads}, {"ok", pass}});
    }
    if (!text) {
        // One strategy: its object at the top level (the keys other tools read); several: a "results" array.
        out << (results.size() == 1 ? results[0] : nlohmann::ordered_json{{"results", results}}).dump(2) << "\n";
    }
    return ok ? exit_ok : exit_check_failed;
}

Cost cpu_run_cost(const CpuOptions& opt) {
    const Problem& p = opt.input.problem;
    Cost cost = host_tensors_cost(p, dtype_bytes(opt.dtype), opt.layout, opt.block_size);
    Cost plans;
    for (Strategy strategy : opt.input.strategies) {
        PlanOptions one = opt.input.plan;
        one.strategy = strategy;
        plans.then(plan_cost(p, opt.input.device, one).add(cpu_workspace_cost(p, plan_size(p, opt.input.device, one))));
    }
    cost.add(plans);
    // Each strategy's runs, the float64 reference (counted as two runs: doubles at half the speed) and a
    // comparison after every run.
    const auto runs = static_cast<std::int64_t>(opt.input.strategies.size()) * opt.repeat;
    cost.add(decode_work(p, saturating::add(runs, 2)));
    const std::int64_t threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    // Each worker thread reserves its stack (cpu/thread_stack.hpp), plus ~1 MiB of scratch.
    const std::int64_t per_thread = saturating::add(cpu::thread_stack_bytes(), std::int64_t{1} << 20);
    cost.add({"the threads' stacks and scratch", saturating::mul(threads, per_thread), 0, {{"threads", std::to_string(threads)}}});
    if (opt.measure_read) {
        const auto bytes = static_cast<std::int64_t>(opt.read_bytes > 0 ? opt.read_bytes : cpu::read_buffer_bytes());
        cost.add({"the read-bandwidth buffer", bytes, saturating::mul(bytes / 4, 12), {}});  // 10 passes, one per float
    }
    return cost;
}

int cpu_main(const Args& args) {
    ProblemFlags flags;
    CpuOptions opt;
    std::string dtype = "fp16", layout = "padded", block_size = "16", threads = "0", seed = std::to_string(opt.seed), repeat = std::to_string(opt.repeat);
    po::options_description desc("flags");
    add_problem_flags(desc, flags, "text|json", true);
    desc.add_options()("dtype", po::value(&dtype)->default_value(dtype), "fp32|fp16|bf16 (Q, K, V and O; fp32 accumulation)")(
        "layout", po::value(&layout)->default_value(layout),
        "K/V layout: padded (batch, kv_heads, N, d), token-major (batch, N, kv_heads, d), paged (blocks, block_size, kv_heads, d) "
        "with a block table, or ragged (kv_heads, total_ctx, d)")(
        "block-size", po::value(&block_size)->default_value(block_size), "paged layout: tokens per cache block (1..256)")(
        "threads", po::value(&threads)->default_value(threads), "threads, each playing SMs (0 = all cores; at most 1024)")(
        "seed", po::value(&seed)->default_value(seed), "input generator seed")(
        "repeat", po::value(&repeat)->default_value(repeat), "timed runs per strategy (the fastest is reported; at most 100000)")(
        "no-read-bandwidth", po::bool_switch(), "skip measuring this machine's plain read bandwidth (its buffer is 4x the last-level cache, "
        "at least 1 GiB, so it dominates a small problem's memory and time): read_gbps and of_read are then 0");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn cpu [problem flags] [--dtype fp16] [--layout padded] [--strategy stream-k|…|all] [--threads N]",
                       "Runs a strategy's plan (stream-k by default; --strategy all: each) for real on this CPU: OpenMP\n"
                       "threads play the SMs, CTAs walk the plan, non-host CTAs publish partials and signal flags, hosts\n"
                       "wait and reduce in plan order. Checks O and the LSE against a float64 reference of the same rounded\n"
                       "inputs (exit 1 over tolerance), and times it against this machine's plain read bandwidth, measured\n"
                       "in the same run.\n\n"
                       "  leanattn cpu --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --ctx 3000,700 --strategy all\n"
                       "  leanattn cpu --heads 32 --head-dim 128 --ctx 65536 --dtype fp16 --format json")) {
        return exit_ok;
    }
    opt.input = resolve_problem(flags, vm, "text|json", true);
    opt.dtype = dtype_flag("--dtype", dtype, {DType::fp32, DType::fp16, DType::bf16});
    opt.layout = layout_flag("--layout", layout);
    opt.block_size = parse_positive("--block-size", block_size);
    if (opt.layout == CacheLayout::paged && opt.block_size > 256) throw InputError("--block-size " + block_size, "must lie in 1..256 tokens");
    const std::int64_t thread_count = parse_non_negative("--threads", threads);
    if (thread_count > cpu::max_threads) throw InputError("--threads " + threads, "at most " + std::to_string(cpu::max_threads) + " (0: all cores)");
    opt.threads = static_cast<int>(thread_count);
    opt.seed = static_cast<std::uint64_t>(parse_non_negative("--seed", seed));
    const std::int64_t repeats = parse_positive("--repeat", repeat);
    if (repeats > 100000) throw InputError("--repeat " + repeat, "at most 100000 runs per strategy");
    opt.repeat = static_cast<int>(repeats);
    opt.measure_read = !vm["no-read-bandwidth"].as<bool>();
    // The read buffer takes at most a quarter of the memory limit: on a small budget the bandwidth is
    // measured over less memory rather than refused.
    opt.read_bytes = std::max(4096.0, std::min(cpu::read_buffer_bytes(), static_cast<double>(opt.input.limits.max_memory_bytes) / 4));
    check_cost(cpu_run_cost(opt), opt.input.limits);
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = run_cpu(opt, out); });
    return status;
}

}  // namespace leanattn::app

// cmd_cuda.cpp — `leanattn cuda validate|bench`: the decode kernels on this machine's GPU.
//
// validate: fresh random inputs (never zeros), output and LSE poisoned with NaN before every run, each
//           strategy checked against a float64 reference of the very same (rounded) inputs; exit 1 over
//           tolerance.
// bench:    each strategy timed with CUDA events after an L2 flush (median), reported as µs, GB/s of K and
//           V read, and the fraction of the memory floor = (K and V bytes) / (measured copy bandwidth).
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "core/validate.hpp"
#include "core/reference.hpp"
#include "cpu/host_tensors.hpp"
#include "cuda/gpu_tools.cuh"
#include "cuda/plan_visits.cuh"
#include "cuda/lean_decoder.cuh"
#include "problem_options.hpp"

namespace leanattn::app {

namespace {

using cuda::DType;

struct GpuProblem {
    Problem problem;
    DType dtype = DType::fp16;
    std::int64_t max_ctx = 0;
    cuda::DeviceBuffer q, k, v, o, lse, ctx;

    std::int64_t q_elems() const { return problem.batch * problem.q_heads * problem.head_dim; }
    std::int64_t kv_elems() const { return problem.batch * problem.kv_heads * max_ctx * problem.head_dim; }
    // Bytes of K and V the kernel must read: only each request's own tokens.
    double kv_bytes_read() const {
        return 2.0 * static_cast<double>(problem.total_ctx()) * static_cast<double>(problem.kv_heads * problem.head_dim) * 2.0;
    }
};

GpuProblem make_inputs(const Problem& p, DType dtype, std::uint64_t seed) {
    GpuProblem g;
    g.problem = p;
    g.dtype = dtype;
    g.max_ctx = p.max_ctx();
    const std::size_t e = cuda::dtype_bytes(dtype);
    g.q = cuda::DeviceBuffer(static_cast<std::size_t>(g.q_elems()) * e);
    g.k = cuda::DeviceBuffer(static_cast<std::size_t>(g.kv_elems()) * e);
    g.v = cuda::DeviceBuffer(static_cast<std::size_t>(g.kv_elems()) * e);
    g.o = cuda::DeviceBuffer(static_cast<std::size_t>(g.q_elems()) * e);
    g.lse = cuda::DeviceBuffer(static_cast<std::size_t>(p.batch * p.q_heads) * sizeof(float));
    g.ctx = cuda::DeviceBuffer(p.ctx.size() * sizeof(std::int64_t));
    cuda::check(cudaMemcpy(g.ctx.get(), p.ctx.data(), p.ctx.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice), "copy ctx");
    cuda::fill_random(g.q.get(), g.q_elems(), dtype, seed * 3 + 0);
    cuda::fill_random(g.k.get(), g.kv_elems(), dtype, seed * 3 + 1);
    cuda::fill_random(g.v.get(), g.kv_elems(), dtype, seed * 3 + 2);
    return g;
}

cuda::DecodeTensors tensors(const GpuProblem& g) {
    cuda::DecodeTensors t;
    t.q = g.q.get(), t.k = g.k.get(), t.v = g.v.get(), t.o = g.o.get(), t.lse = g.lse.get<float>();
    t.ctx = g.ctx.get<std::int64_t>();
    t.max_ctx = g.max_ctx;
    return t;
}

// The live GPU as a DeviceSpec: its SM count, and how many CTAs of this kernel fit on one SM.
DeviceSpec live_device(const Problem& p, DType dtype, const DeviceSpec& named) {
    DeviceSpec d = named;
    cudaDeviceProp prop{};
    cuda::check(cudaGetDeviceProperties(&prop, 0), "device properties");
    d.name = prop.name;
    d.sms = cuda::device_sm_count();
    d.ctas_per_sm = cuda::resident_ctas_per_sm(dtype, p.head_dim, p.group());
    return d;
}

leanattn::DType host_dtype(DType dtype) { return dtype == DType::fp16 ? leanattn::DType::fp16 : leanattn::DType::bf16; }

// The GPU's inputs copied into CPU tensors (same padded layout), so the CPU's float64 reference and its
// comparison judge the kernel: one reference for both executors.
cpu::HostTensors host_copy(const GpuProblem& g) {
    cpu::HostTensors host(g.problem, host_dtype(g.dtype), CacheLayout::padded);
    cuda::check(cudaMemcpy(host.raw_q().data(), g.q.get(), host.raw_q().size(), cudaMemcpyDeviceToHost), "copy q");
    cuda::check(cudaMemcpy(host.raw_k().data(), g.k.get(), host.raw_k().size(), cudaMemcpyDeviceToHost), "copy k");
    cuda::check(cudaMemcpy(host.raw_v().data(), g.v.get(), host.raw_v().size(), cudaMemcpyDeviceToHost), "copy v");
    return host;
}

Errors compare(const GpuProblem& g, cpu::HostTensors& host, const ReferenceOutput& ref) {
    const DecodeTensors view = host.view();
    cuda::check(cudaMemcpy(host.raw_o().data(), g.o.get(), host.raw_o().size(), cudaMemcpyDeviceToHost), "copy o");
    cuda::check(cudaMemcpy(view.lse.data, g.lse.get(), host.lse().size() * sizeof(float), cudaMemcpyDeviceToHost), "copy lse");
    return compare_to_reference(g.problem, view, ref);
}

// The CPU's tolerances (cpu/reference.hpp): the output type's rounding dominates; twice its unit roundoff.
double tolerance(DType dtype) { return leanattn::tolerance(host_dtype(dtype)); }

DType parse_dtype(const std::string& s) {
    if (s == "fp16") return DType::fp16;
    if (s == "bf16") return DType::bf16;
    throw InputError("--dtype " + s, "the CUDA kernels take fp16 or bf16");
}

struct CudaOptions {
    ResolvedProblem input;
    DType dtype = DType::fp16;
    std::uint64_t seed = 1;
    int repeat = 50;
};

// The plan of one strategy for the live GPU, refused (InputError) if a host could wait on a CTA that is
// not co-resident.
Schedule plan_for(const CudaOptions& opt, const Problem& problem, const DeviceSpec& device, Strategy strategy) {
    PlanOptions plan = opt.input.plan;
    plan.strategy = strategy;
    Schedule s = make_schedule(problem, device, plan);
    check_coresidency(s);
    return s;
}

int run_validate(const CudaOptions& opt, std::ostream& out) {
    GpuProblem g = make_inputs(opt.input.problem, opt.dtype, opt.seed);
    cpu::HostTensors host = host_copy(g);
    const ReferenceOutput ref = reference_attention(g.problem, host.view());
    const DeviceSpec device = live_device(g.problem, opt.dtype, opt.input.device);
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    bool ok = true;
    out << "validate on " << device.name << " (" << device.sms << " SMs x " << device.ctas_per_sm << " CTAs/SM), tolerance rel L2 <= "
        << tolerance(opt.dtype) << "\n";
    for (Strategy strategy : opt.input.strategies) {
        const Schedule s = plan_for(opt, g.problem, device, strategy);
        cuda::LeanDecoder decoder(s, opt.dtype);
        Errors worst;
        for (int run = 0; run < 3; ++run) {  // poisoned before every run: a stale result cannot pass
            cuda::poison_nan(g.o.get(), g.q_elems(), opt.dtype);
            cuda::poison_nan_f32(g.lse.get<float>(), g.problem.batch * g.problem.q_heads);
            decoder.run(tensors(g));
            cuda::check(cudaDeviceSynchronize(), "decode");
            const Errors e = compare(g, host, ref);
            worst.rel_l2 = std::max(worst.rel_l2, e.rel_l2);
            worst.max_abs = std::max(worst.max_abs, e.max_abs);
            worst.lse_max_abs = std::max(worst.lse_max_abs, e.lse_max_abs);
            worst.non_finite += e.non_finite;
        }
        const bool pass = worst.non_finite == 0 && worst.rel_l2 <= tolerance(opt.dtype);
        ok = ok && pass;
        out << std::left << std::setw(12) << strategy_name(strategy) << " grid " << std::setw(6) << s.grid << " rel_l2 " << std::scientific
            << std::setprecision(2) << worst.rel_l2 << " max_abs " << worst.max_abs << " lse_max_abs " << worst.lse_max_abs << std::defaultfloat
            << " non_finite " << worst.non_finite << (pass ? "  ok" : "  FAILED") << "\n";
        results.push_back({{"strategy", std::string(strategy_name(strategy))}, {"grid", s.grid}, {"rel_l2_err", worst.rel_l2},
                           {"max_abs_err", worst.max_abs}, {"lse_max_abs_err", worst.lse_max_abs}, {"non_finite", worst.non_finite}, {"ok", pass}});
    }
    if (opt.input.format == "json") out << nlohmann::ordered_json{{"device", device.name}, {"results", results}}.dump(2) << "\n";
    return ok ? exit_ok : exit_check_failed;
}

int run_bench(const CudaOptions& opt, std::ostream& out) {
    GpuProblem g = make_inputs(opt.input.problem, opt.dtype, opt.seed);
    const DeviceSpec device = live_device(g.problem, opt.dtype, opt.input.device);
    const double copy_gbps = cuda::measure_copy_gbps(std::size_t{1} << 30);
    const double floor_us = g.kv_bytes_read() / (copy_gbps * 1e9) * 1e6;
    cuda::L2Flusher flusher;
    cudaEvent_t start, stop;
    cuda::check(cudaEventCreate(&start), "event");
    cuda::check(cudaEventCreate(&stop), "event");
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    out << "bench on " << device.name << " (" << device.sms << " SMs x " << device.ctas_per_sm << " CTAs/SM): copy " << std::fixed
        << std::setprecision(0) << copy_gbps << " GB/s, K+V " << std::setprecision(1) << g.kv_bytes_read() / 1e6 << " MB, floor "
        << std::setprecision(2) << floor_us << " us\n";
    out << std::left << std::setw(12) << "strategy" << std::right << std::setw(7) << "grid" << std::setw(9) << "launch" << std::setw(11)
        << "median_us" << std::setw(9) << "GB/s" << std::setw(10) << "of_floor" << "\n";
    for (Strategy strategy : opt.input.strategies) {
        const Schedule s = plan_for(opt, g.problem, device, strategy);
        cuda::LeanDecoder decoder(s, opt.dtype);
        std::vector<float> ms;
        for (int i = 0; i < opt.repeat + 3; ++i) {
            flusher.flush();
            cuda::check(cudaEventRecord(start), "record");
            decoder.run(tensors(g));
            cuda::check(cudaEventRecord(stop), "record");
            cuda::check(cudaEventSynchronize(stop), "decode");
            float t = 0;
            cuda::check(cudaEventElapsedTime(&t, start, stop), "elapsed");
            if (i >= 3) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double us = ms[ms.size() / 2] * 1e3;
        const double gbps = g.kv_bytes_read() / (us * 1e-6) / 1e9;
        out << std::left << std::setw(12) << strategy_name(strategy) << std::right << std::setw(7) << s.grid << std::setw(9) << s.launches
            << std::setw(11) << std::setprecision(1) << us << std::setw(9) << std::setprecision(0) << gbps << std::setw(10)
            << std::setprecision(2) << floor_us / us << "\n";
        results.push_back({{"strategy", std::string(strategy_name(strategy))}, {"grid", s.grid}, {"launches", s.launches}, {"splits", s.splits},
                           {"median_us", us}, {"gbps", gbps}, {"fraction_of_floor", floor_us / us}});
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    if (opt.input.format == "json") {
        const Problem& p = g.problem;
        out << nlohmann::ordered_json{{"device", device.name}, {"copy_gbps", copy_gbps}, {"kv_bytes", g.kv_bytes_read()}, {"floor_us", floor_us},
                                      {"problem", {{"batch", p.batch}, {"q_heads", p.q_heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim}, {"ctx", p.ctx}, {"tile", p.tile}}},
                                      {"results", results}}.dump(2) << "\n";
    }
    return exit_ok;
}

}  // namespace

int cuda_main(const Args& args) {
    if (args.empty() || (args[0] != "validate" && args[0] != "bench")) {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::cout << "usage: leanattn cuda validate|bench [problem flags] [--dtype fp16|bf16] [--seed N] [--repeat N]\n";
            return exit_ok;
        }
        throw InputError("cuda " + (args.empty() ? std::string() : args[0]), "expected `leanattn cuda validate` or `leanattn cuda bench`");
    }
    const bool validate = args[0] == "validate";
    ProblemFlags flags;
    flags.strategy = "all";
    std::string dtype = "fp16";
    CudaOptions opt;
    po::options_description desc("flags");
    add_problem_flags(desc, flags, "text|json", true);
    desc.add_options()("dtype", po::value(&dtype)->default_value(dtype), "fp16|bf16")("seed", po::value(&opt.seed)->default_value(opt.seed),
                                                                                      "input generator seed")(
        "repeat", po::value(&opt.repeat)->default_value(opt.repeat), "bench: timed runs per strategy (median reported)");
    po::variables_map vm;
    if (!parse_or_help(Args(args.begin() + 1, args.end()), desc, vm, std::string("leanattn cuda ") + args[0] + " [problem flags]",
                       validate ? "Runs the decode kernels on this GPU and checks every strategy against a float64 reference\n"
                                  "(fresh random inputs, output poisoned with NaN before each run). Exit 1 over tolerance."
                                : "Times the decode kernels on this GPU (CUDA events, L2 flushed, median) against the memory floor\n"
                                  "(K and V bytes / measured device-to-device copy bandwidth).")) {
        return exit_ok;
    }
    opt.input = resolve_problem(flags, vm, "text|json", true);
    opt.dtype = parse_dtype(dtype);
    cuda::check_supported(opt.input.problem);
    if (opt.repeat < 1) throw InputError("--repeat " + std::to_string(opt.repeat), "must be a positive integer");
    std::string why;
    if (!cuda::device_available(&why)) throw InputError("leanattn cuda", "no usable CUDA device: " + why);
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = validate ? run_validate(opt, out) : run_bench(opt, out); });
    return status;
}

}  // namespace leanattn::app

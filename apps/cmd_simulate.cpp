// cmd_simulate.cpp — `leanattn simulate`: makespan, occupancy and per-SM timelines of each strategy.
#include "cmd_simulate.hpp"

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "simulation_report.hpp"
#include "simulation_svg.hpp"
#include "data_catalog.hpp"
#include "trace_comparison.hpp"

namespace leanattn::app {

int run_simulate(const SimulateOptions& options, std::ostream& out) {
    const ResolvedProblem& in = options.input;
    sim::SimOptions sim_options;
    sim_options.bytes_per_element = dtype_bytes(options.dtype);
    sim_options.record_timeline = in.format == "svg" || in.format == "html";
    sim_options.kernel = options.kernel ? &*options.kernel : nullptr;
    const std::vector<sim::SimResult> results = sim::simulate_strategies(in.problem, in.device, in.plan, in.strategies, sim_options);
    const SimulationReport report{in.problem, in.device, std::string(dtype_name(options.dtype)), results,
                                  in.auto_choice ? auto_choice_json(*in.auto_choice) : nullptr, options.kernel ? options.kernel->name : "paper"};
    if (in.format == "json") out << simulation_to_json(report).dump(2) << "\n";
    else if (in.format == "svg") write_simulation_svg(out, report);
    else if (in.format == "html") write_simulation_html(out, report);
    else write_simulation_text(out, report);
    return exit_ok;
}

namespace {

// `simulate --trace FILE`: the trace's own problem, each strategy's plan remade and played beside it.
int simulate_trace(const std::string& trace_file, const std::string& device_name, const std::string& kernel_name, const std::string& format,
                   const std::string& output) {
    if (format != "text" && format != "json" && format != "svg") throw InputError("--format " + format, "with --trace: text, json or svg");
    const MeasuredTrace trace = read_trace(trace_file);
    const DeviceSpec device = load_device(device_name);
    const sim::KernelModel kernel = load_kernel(kernel_name, device);
    const TraceComparison comparison = compare_trace(trace, device, kernel);
    write_output(output, [&](std::ostream& out) {
        if (format == "json") out << trace_comparison_json(comparison).dump(2) << "\n";
        else if (format == "svg") write_trace_comparison_svg(out, comparison);
        else write_trace_comparison_text(out, comparison);
    });
    return exit_ok;
}

// The first problem or plan flag given that --trace replaces (the trace names its problem and the plans that ran), or
// nullptr.
const char* problem_flag_given(const po::variables_map& vm) {
    for (const char* f : {"model", "batch", "heads", "kv-heads", "head-dim", "ctx", "q-len", "tile", "tile-rows", "strategy", "splits", "grid",
                          "stream-k-rule", "snap", "plan-for", "ctas-per-sm", "dtype"}) {
        if (vm.count(f) && !vm[f].defaulted()) return f;
    }
    return nullptr;
}

}  // namespace

int simulate_main(const Args& args) {
    ProblemFlags flags;
    flags.strategy = "all";
    SimulateOptions options;
    const std::string formats = "text|json|svg|html";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, formats, true);
    std::string dtype = "fp16", kernel, trace;
    desc.add_options()("dtype", po::value(&dtype)->default_value(dtype), "K/V element type: fp16|bf16|fp32")(
        "kernel", po::value(&kernel),
        "the kernel model: paper (Algorithm 2 with the device file's costs), a name in data/kernels (leanattn-h100: leanattn's kernel, "
        "fitted by `leanattn calibrate`), or a .json file; default paper, or with --strategy auto the model auto weighed the plans with")(
        "trace", po::value(&trace), "a per-CTA trace of `leanattn cuda bench --trace`: simulate its problem's plans and compare (text|json|svg)");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn simulate [problem flags] [--kernel NAME] [--dtype fp16|bf16|fp32] [--format text|json|svg|html] [-o FILE]\n"
                                         "       leanattn simulate --trace TRACE.json [--kernel NAME] [--device D] [--format text|json|svg] [-o FILE]",
                       "Plays each strategy's plan out on a model of the device (event by event: CTA slots, waves,\n"
                       "HBM bandwidth shared by the streaming SMs, partial stores, flag waits, host merges, launches)\n"
                       "and reports makespan, occupancy, idle SMs, waves and the reduction's share of the time.\n"
                       "The model and its parameters: docs/simulator.md, data/devices/README.md; kernel models: docs/calibration.md.\n"
                       "--trace FILE plays the trace's plans instead and draws measured and simulated timelines on one axis.\n\n"
                       "  leanattn simulate --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper  # Figure 1\n"
                       "  leanattn simulate --batch 6 --heads 48 --head-dim 64 --ctx 65536                                 # Figure 8, 64k\n"
                       "  leanattn simulate --device a100-80gb-x8 --batch 4 --heads 256 --head-dim 64 --ctx 262144 --format svg -o t.svg\n"
                       "  leanattn simulate --kernel leanattn-h100 --model llama-3-8b --ctx 32768                 # leanattn's kernel on an H100\n"
                       "  leanattn simulate --kernel leanattn-h100 --trace trace.json --format svg -o vs.svg     # beside a measured trace")) {
        return exit_ok;
    }
    if (!trace.empty()) {
        if (const char* flag = problem_flag_given(vm)) {
            throw InputError("--trace", std::string("names its own problem and replays the plans that ran: leave out --") + flag);
        }
        return simulate_trace(trace, flags.device, kernel.empty() ? "paper" : kernel, flags.format, flags.output);
    }
    options.dtype = dtype_flag("--dtype", dtype, {DType::fp16, DType::bf16, DType::fp32});
    flags.auto_bytes_per_element = dtype_bytes(options.dtype);  // auto weighs the plans at the bytes they are played at
    options.input = resolve_problem(flags, vm, formats, true);
    if (kernel.empty() && options.input.auto_choice) {
        // The plan auto chose, played under the model it was weighed with: the makespan is the time auto predicted
        // (for a capacity: its time at the capacity, one of the three it averaged).
        options.kernel = options.input.auto_choice->kernel;
    } else if (!kernel.empty() && kernel != "paper") {
        options.kernel = load_kernel(kernel, options.input.device);
        // --ctas-per-sm given stands: the kernel then runs at the device's CTAs per SM (as auto weighed it), not its own.
        if (!flags.ctas_per_sm.empty()) options.kernel->ctas_per_sm = 0;
        options.input.device = sim::device_for_kernel(options.input.device, *options.kernel);  // the plans it runs, as reported
    }
    const ResolvedProblem& in = options.input;
    check_cost(simulation_report_cost(in.problem, in.device, in.plan, in.strategies, in.format == "svg" || in.format == "html"), in.limits);
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = run_simulate(options, out); });
    return status;
}

}  // namespace leanattn::app

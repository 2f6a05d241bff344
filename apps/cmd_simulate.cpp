// cmd_simulate.cpp — `leanattn simulate`: makespan, occupancy and per-SM timelines of each strategy.
#include "cmd_simulate.hpp"

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "simulation_report.hpp"
#include "simulation_svg.hpp"

namespace leanattn::app {

int run_simulate(const SimulateOptions& options, std::ostream& out) {
    const ResolvedProblem& in = options.input;
    sim::SimOptions sim_options;
    sim_options.bytes_per_element = dtype_bytes(options.dtype);
    sim_options.record_timeline = in.format == "svg" || in.format == "html";
    const std::vector<sim::SimResult> results = sim::simulate_strategies(in.problem, in.device, in.plan, in.strategies, sim_options);
    const SimulationReport report{in.problem, in.device, std::string(dtype_name(options.dtype)), results};
    if (in.format == "json") out << simulation_to_json(report).dump(2) << "\n";
    else if (in.format == "svg") write_simulation_svg(out, report);
    else if (in.format == "html") write_simulation_html(out, report);
    else write_simulation_text(out, report);
    return exit_ok;
}

int simulate_main(const Args& args) {
    ProblemFlags flags;
    flags.strategy = "all";
    SimulateOptions options;
    const std::string formats = "text|json|svg|html";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, formats, true);
    std::string dtype = "fp16";
    desc.add_options()("dtype", po::value(&dtype)->default_value(dtype), "K/V element type: fp16|bf16|fp32");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn simulate [problem flags] [--dtype fp16|bf16|fp32] [--format text|json|svg|html] [-o FILE]",
                       "Plays each strategy's plan out on a model of the device (event by event: CTA slots, waves,\n"
                       "HBM bandwidth shared by the streaming SMs, partial stores, flag waits, host merges, launches)\n"
                       "and reports makespan, occupancy, idle SMs, waves and the reduction's share of the time.\n"
                       "The model and its parameters: docs/simulator.md, data/devices/README.md.\n\n"
                       "  leanattn simulate --device paper-5sm --heads 2 --head-dim 64 --ctx 1280          # Figure 1\n"
                       "  leanattn simulate --batch 6 --heads 48 --head-dim 64 --ctx 65536                 # Figure 8, 64k\n"
                       "  leanattn simulate --device a100-80gb-x8 --batch 4 --heads 256 --head-dim 64 --ctx 262144 --format svg -o t.svg")) {
        return exit_ok;
    }
    options.input = resolve_problem(flags, vm, formats, true);
    options.dtype = dtype_flag("--dtype", dtype, {DType::fp16, DType::bf16, DType::fp32});
    const ResolvedProblem& in = options.input;
    check_cost(simulation_report_cost(in.problem, in.device, in.plan, in.strategies, in.format == "svg" || in.format == "html"), in.limits);
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = run_simulate(options, out); });
    return status;
}

}  // namespace leanattn::app

// cmd_sweep.cpp — `leanattn sweep --vary ctx|heads|batch|ragged --values …`: speedup curves.
#include "cmd_sweep.hpp"

#include <algorithm>
#include <sstream>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "data_catalog.hpp"
#include "progress_bar.hpp"
#include "sweep_report.hpp"
#include "sweep_svg.hpp"

namespace leanattn::app {

std::vector<std::int64_t> parse_sweep_values(const std::string& text) {
    std::vector<std::int64_t> values;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        std::int64_t scale = 1;
        if (!item.empty() && (item.back() == 'k' || item.back() == 'K')) scale = 1024;
        if (!item.empty() && (item.back() == 'm' || item.back() == 'M')) scale = 1024 * 1024;
        const std::string digits = scale == 1 ? item : item.substr(0, item.size() - 1);
        std::int64_t v = 0;
        try {
            v = parse_positive("--values", digits.empty() ? item : digits);
        } catch (const InputError& e) {  // the item as given (1kk, 1.5k, -1k), not its digits alone
            throw InputError("--values " + text, "item \"" + item + "\": " + e.reason());
        }
        if (v > (std::int64_t{1} << 40) / scale) throw InputError("--values " + item, "too large");
        values.push_back(v * scale);
    }
    if (values.empty() || text.back() == ',') throw InputError("--values " + text, "expected a comma-separated list such as 1k,4k,16k,64k");
    return values;
}

int run_sweep(const SweepOptions& options, std::ostream& out) {
    ProgressBar bar("sweep " + options.vary, options.progress);
    const ResolvedProblem& in = options.input;
    sim::SimOptions sim_options;
    sim_options.bytes_per_element = dtype_bytes(options.dtype);
    sim_options.kernel = options.kernel ? &*options.kernel : nullptr;
    const std::vector<sim::SweepRow> rows = sim::sweep(in.problem, in.device, in.plan, in.strategies, options.vary, options.values, sim_options,
                                                       [&](std::size_t done, std::size_t total) { bar.update(done, total); },
                                                       options.auto_kernel ? &*options.auto_kernel : nullptr);
    const SweepReport report{options.vary, in.device, std::string(dtype_name(options.dtype)), in.problem, rows, options.kernel ? options.kernel->name : "paper"};
    const std::string& format = options.input.format;
    if (format == "csv") write_sweep_csv(out, report);
    else if (format == "json") out << sweep_to_json(report).dump(2) << "\n";
    else if (format == "svg") write_sweep_svg(out, report);
    else write_sweep_text(out, report);
    return exit_ok;
}

int sweep_main(const Args& args) {
    ProblemFlags flags;
    flags.strategy = "all";
    flags.auto_at_each_value = true;
    SweepOptions options;
    std::string values, dtype = "fp16", kernel;
    const std::string formats = "text|csv|json|svg";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, formats, true);
    desc.add_options()
        ("vary", po::value(&options.vary)->default_value(options.vary), "the dimension swept: ctx|heads|batch|ragged (ragged: mean/max context in %, Figure 10)")
        ("values", po::value(&values)->required(), "comma-separated values, k = 1024 and M = 1048576 allowed: 1k,4k,16k,64k")
        ("dtype", po::value(&dtype)->default_value(dtype), "K/V element type: fp16|bf16|fp32")
        ("kernel", po::value(&kernel), "the kernel model: paper, a name in data/kernels (leanattn-h100), or a .json file; default paper, or with "
                                       "--strategy auto the model auto weighs with")
        ("no-progress", "never draw the progress bar on stderr");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn sweep --vary ctx|heads|batch|ragged --values V1,V2,... [problem flags] [--format text|csv|json|svg] [-o FILE]",
                       "Simulates stream-k (LeanAttention), fixed-split (Flash-Decoding) and no-split (FlashAttention-2)\n"
                       "for each value of one problem dimension, and reports the makespans and LeanAttention's speedups\n"
                       "LA/FD = fixed-split / stream-k and LA/FA2 = no-split / stream-k. Other dimensions come from the\n"
                       "problem flags; --ctx gives the longest context of a ragged sweep. --strategy auto adds, at each value,\n"
                       "the plan auto chooses for that problem, all four played under the kernel model auto weighs with.\n\n"
                       "  leanattn sweep --device a100-80gb --batch 4 --heads 32 --head-dim 64 --vary ctx --values 1k,4k,16k,64k,256k   # Fig. 7a\n"
                       "  leanattn sweep --device h100-sxm --batch 6 --heads 48 --head-dim 64 --vary ctx --values 4k,8k,16k,32k,64k --format svg -o fig8.svg\n"
                       "  leanattn sweep --batch 16 --heads 32 --head-dim 128 --ctx 65536 --vary ragged --values 10,25,50,75,100  # Fig. 10")) {
        return exit_ok;
    }
    // The dimension swept takes its values from --values: the same flag given too would be dropped without a word.
    for (const char* swept : {"ctx", "batch"}) {
        if (options.vary == swept && vm.count(swept) && !vm[swept].defaulted()) {
            throw InputError(std::string("--") + swept + " with --vary " + swept, std::string("the sweep sets it from --values; leave --") + swept + " out");
        }
    }
    options.input = resolve_problem(flags, vm, formats, true);
    const std::vector<Strategy>& strategies = options.input.strategies;
    const auto sweeps = [&](Strategy s) { return std::find(strategies.begin(), strategies.end(), s) != strategies.end(); };
    if (options.input.format == "svg" && !(sweeps(Strategy::stream_k) && (sweeps(Strategy::fixed_split) || sweeps(Strategy::no_split)))) {
        throw InputError("--format svg --strategy " + flags.strategy,
                         "the picture is stream-k's speedup over the baselines: sweep with --strategy all, the default, or auto; "
                         "text, csv and json give one strategy's times");
    }
    options.values = parse_sweep_values(values);
    options.progress = vm.count("no-progress") == 0;
    options.dtype = dtype_flag("--dtype", dtype, {DType::fp16, DType::bf16, DType::fp32});
    if (options.input.auto_at_each_value) {
        options.auto_kernel = kernel_for_device(options.input.device);
        if (!flags.ctas_per_sm.empty()) options.auto_kernel->ctas_per_sm = 0;  // weighed on the CTAs per SM given, as schedule's auto
        if (kernel.empty()) options.kernel = options.auto_kernel;  // every plan played under the model auto weighs with
    }
    if (!kernel.empty() && kernel != "paper") {
        options.kernel = load_kernel(kernel, options.input.device);
        if (!flags.ctas_per_sm.empty()) options.kernel->ctas_per_sm = 0;  // --ctas-per-sm given stands, as for auto
    }
    if (options.kernel) options.input.device = sim::device_for_kernel(options.input.device, *options.kernel);
    // Every row checked and costed before the first is simulated: rows run one after another, so their work
    // adds up while memory is that of the largest; the report keeps a few numbers per row.
    const ResolvedProblem& in = options.input;
    Cost cost;
    for (std::int64_t v : options.values) {
        if (options.vary == "batch") check_cost(Cost(cost).then(request_list_cost(v)), in.limits);  // before the row's ctx list exists
        const Problem p = sim::vary_problem(in.problem, options.vary, v);
        Cost row = simulation_report_cost(p, in.device, in.plan, in.strategies, false);
        if (options.auto_kernel) row.then(auto_choice_cost(p, in.device, sim::PlannedLengths::the_problems)).then(simulation_cost(p, in.device, in.plan, false));
        cost.then(row).add({"the report's rows", 4096, 0, {}});
        check_cost(cost, in.limits);
    }
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = run_sweep(options, out); });
    return status;
}

}  // namespace leanattn::app

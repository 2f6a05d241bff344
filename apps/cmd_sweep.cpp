// cmd_sweep.cpp — `leanattn sweep --vary ctx|heads|batch|ragged --values …`: speedup curves.
#include "cmd_sweep.hpp"

#include <algorithm>
#include <sstream>

#include "cli.hpp"
#include "cmd_simulate.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "progress_bar.hpp"
#include "sweep_report.hpp"
#include "sweep_svg.hpp"

namespace leanattn::app {

const sim::SimResult* SweepRow::find(Strategy s) const {
    for (const sim::SimResult& r : results) {
        if (r.strategy == s) return &r;
    }
    return nullptr;
}

double SweepRow::speedup_over(Strategy baseline) const {
    const sim::SimResult* lean = find(Strategy::stream_k);
    const sim::SimResult* other = find(baseline);
    return lean && other ? other->makespan_ns / lean->makespan_ns : 0.0;
}

std::vector<std::int64_t> parse_sweep_values(const std::string& text) {
    std::vector<std::int64_t> values;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        std::int64_t scale = 1;
        if (!item.empty() && (item.back() == 'k' || item.back() == 'K')) scale = 1024;
        if (!item.empty() && (item.back() == 'm' || item.back() == 'M')) scale = 1024 * 1024;
        const std::string digits = scale == 1 ? item : item.substr(0, item.size() - 1);
        const std::int64_t v = parse_positive("--values", digits.empty() ? item : digits);
        if (v > (std::int64_t{1} << 40) / scale) throw InputError("--values " + item, "too large");
        values.push_back(v * scale);
    }
    if (values.empty() || text.back() == ',') throw InputError("--values " + text, "expected a comma-separated list such as 1k,4k,16k,64k");
    return values;
}

Problem vary_problem(const Problem& base, const std::string& vary, std::int64_t value) {
    Problem p = base;
    const std::string what = "--vary " + vary + " value " + std::to_string(value);
    if (vary == "ctx") {
        p.ctx.assign(static_cast<std::size_t>(p.batch), value);
    } else if (vary == "batch") {
        if (value > (std::int64_t{1} << 20)) throw InputError(what, "at most 1048576 requests in a sweep");
        const std::int64_t longest = *std::max_element(base.ctx.begin(), base.ctx.end());
        p.batch = value;
        p.ctx.assign(static_cast<std::size_t>(value), longest);
    } else if (vary == "heads") {
        const std::int64_t group = base.group();
        if (value % group != 0) throw InputError(what, "must be a multiple of the GQA group " + std::to_string(group));
        p.q_heads = value;
        p.kv_heads = value / group;
    } else if (vary == "ragged") {
        if (value > 100) throw InputError(what, "a mean/max context ratio is a percentage in 1..100");
        const std::int64_t longest = *std::max_element(base.ctx.begin(), base.ctx.end());
        if (p.batch == 1 && value != 100) throw InputError(what, "one request is never ragged; give --batch 2 or more");
        // Request 0 holds the longest context; the rest share (ratio · batch − 1) · longest equally.
        const double rest = static_cast<double>(value) / 100.0 * static_cast<double>(p.batch * longest) - static_cast<double>(longest);
        const std::int64_t each = p.batch == 1 ? longest : static_cast<std::int64_t>(rest / static_cast<double>(p.batch - 1) + 0.5);
        if (each < p.q_len) throw InputError(what, "below 1/batch: the other requests would have no context");
        p.ctx.assign(static_cast<std::size_t>(p.batch), std::min(each, longest));
        p.ctx[0] = longest;
    } else {
        throw InputError("--vary " + vary, "expected ctx, heads, batch or ragged");
    }
    check_problem(p);
    return p;
}

std::vector<SweepRow> sweep_rows(const SweepOptions& options, const std::function<void(std::size_t, std::size_t)>& on_row) {
    const std::int64_t bytes = dtype_bytes(options.dtype);
    std::vector<SweepRow> rows;
    rows.reserve(options.values.size());
    for (std::int64_t value : options.values) {
        ResolvedProblem in = options.input;
        in.problem = vary_problem(options.input.problem, options.vary, value);
        rows.push_back({value, in.problem, simulate_strategies(in, bytes, false)});
        if (on_row) on_row(rows.size(), options.values.size());
    }
    return rows;
}

int run_sweep(const SweepOptions& options, std::ostream& out) {
    ProgressBar bar("sweep " + options.vary, options.progress);
    const std::vector<SweepRow> rows = sweep_rows(options, [&](std::size_t done, std::size_t total) { bar.update(done, total); });
    const SweepReport report{options.vary, options.input.device, options.dtype, options.input.problem, rows};
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
    SweepOptions options;
    std::string values;
    const std::string formats = "text|csv|json|svg";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, formats, true);
    desc.add_options()
        ("vary", po::value(&options.vary)->default_value(options.vary), "the dimension swept: ctx|heads|batch|ragged (ragged: mean/max context in %, Figure 10)")
        ("values", po::value(&values)->required(), "comma-separated values, k = 1024 and M = 1048576 allowed: 1k,4k,16k,64k")
        ("dtype", po::value(&options.dtype)->default_value(options.dtype), "K/V element type: fp16|bf16|fp32")
        ("no-progress", "never draw the progress bar on stderr");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn sweep --vary ctx|heads|batch|ragged --values V1,V2,... [problem flags] [--format text|csv|json|svg] [-o FILE]",
                       "Simulates stream-k (LeanAttention), fixed-split (Flash-Decoding) and no-split (FlashAttention-2)\n"
                       "for each value of one problem dimension, and reports the makespans and LeanAttention's speedups\n"
                       "LA/FD = fixed-split / stream-k and LA/FA2 = no-split / stream-k. Other dimensions come from the\n"
                       "problem flags; --ctx gives the longest context of a ragged sweep.\n\n"
                       "  leanattn sweep --device a100-80gb --batch 4 --heads 32 --head-dim 64 --vary ctx --values 1k,4k,16k,64k,256k   # Fig. 7a\n"
                       "  leanattn sweep --device h100-sxm --batch 6 --heads 48 --head-dim 64 --vary ctx --values 4k,8k,16k,32k,64k --format svg -o fig8.svg\n"
                       "  leanattn sweep --batch 16 --heads 32 --head-dim 128 --ctx 65536 --vary ragged --values 10,25,50,75,100  # Fig. 10")) {
        return exit_ok;
    }
    options.input = resolve_problem(flags, vm, formats, true);
    options.values = parse_sweep_values(values);
    options.progress = vm.count("no-progress") == 0;
    dtype_bytes(options.dtype);
    for (std::int64_t v : options.values) vary_problem(options.input.problem, options.vary, v);  // refuse bad values before any output
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = run_sweep(options, out); });
    return status;
}

}  // namespace leanattn::app

// cmd_schedule.cpp — `leanattn schedule`: a plan as a Figure-1 timeline, JSON, SVG or HTML.
#include "cmd_schedule.hpp"

#include <iostream>

#include "auto_choice_html.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "core/validate.hpp"
#include "schedule_html.hpp"
#include "schedule_json.hpp"
#include "schedule_svg.hpp"
#include "schedule_text.hpp"

namespace leanattn::app {

int run_schedule(const ScheduleOptions& options, std::ostream& out) {
    const ResolvedProblem& in = options.input;
    const Schedule schedule = in.make_plan(in.plan.strategy);
    const ScheduleTable table = tabulate(schedule);
    int status = exit_ok;
    if (options.check) {
        const std::vector<std::string> problems = validate_schedule(schedule, table);
        for (const std::string& p : problems) std::cerr << "check failed: " << p << "\n";
        if (!problems.empty()) status = exit_check_failed;
        else std::cerr << "check: ok (every LeanTile covered once, CTAs contiguous, one host per output listed first, balance or snap, co-residency)\n";
    }
    if (in.format == "json") {
        write_schedule_json(out, schedule, table, in.auto_choice ? auto_choice_json(*in.auto_choice) : nullptr);
        out << "\n";
    } else if (in.format == "svg") write_schedule_svg(out, schedule, table, in.auto_choice ? auto_chooser(auto_choice_json(*in.auto_choice)) : std::string());
    else if (in.format == "html") write_schedule_html(out, schedule, table, in.auto_choice ? auto_choice_json(*in.auto_choice) : nullptr);
    else write_schedule_text(out, schedule, table);
    return status;
}

int schedule_main(const Args& args) {
    ProblemFlags flags;
    ScheduleOptions options;
    const std::string formats = "text|json|svg|html";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, formats, false);
    desc.add_options()("check", po::bool_switch(&options.check), "validate the plan (coverage, contiguity, hosts, balance or snap); exit 1 if broken");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn schedule [problem flags] [--format text|json|svg|html] [-o FILE] [--check]",
                       "Plans one decode-attention problem with one strategy and shows which LeanTiles each CTA does,\n"
                       "which CTA hosts (reduces) each output, and which partials it waits for.\n\n"
                       "  leanattn schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper  # the paper's Figure 1\n"
                       "  leanattn schedule --batch 6 --heads 48 --head-dim 64 --ctx 65536 --strategy fixed-split\n"
                       "  leanattn schedule --model llama-3-8b --batch 3 --ctx 1000,70000,300 --format json -o plan.json\n"
                       "  leanattn schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper --format html -o fig1.html")) {
        return exit_ok;
    }
    options.input = resolve_problem(flags, vm, formats, false);
    const ResolvedProblem& in = options.input;
    const ReportKind report = in.format == "json" ? ReportKind::json : in.format == "text" ? ReportKind::text : ReportKind::picture;
    check_cost(schedule_report_cost(in.problem, in.device, in.plan, report), in.limits);
    int status = exit_ok;
    write_output(flags.output, [&](std::ostream& out) { status = run_schedule(options, out); });
    return status;
}

}  // namespace leanattn::app

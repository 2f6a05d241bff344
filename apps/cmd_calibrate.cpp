// cmd_calibrate.cpp — `leanattn calibrate`: fit a kernel model to measured decode times, check one against
// a sweep it never saw, or predict a sweep before it is measured (docs/calibration.md).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "calibration_report.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "core/cost_estimate.hpp"
#include "core/input_error.hpp"
#include "data_catalog.hpp"
#include "input_file.hpp"
#include "kernel_file.hpp"
#include "measured_runs.hpp"
#include "output_file.hpp"
#include "problem_options.hpp"
#include "resource_limits.hpp"
#include "sim/simulation.hpp"

namespace leanattn::app {

namespace {

using json = nlohmann::ordered_json;

// Where a fit of leanattn's kernel starts when no --start is given: orders of magnitude read off one
// H100 trace (docs/trace.md), so the fit starts in the right basin. Every numeric field is fitted.
sim::KernelModel starting_guess(const std::string& name) {
    sim::KernelModel k;
    k.name = name;
    k.ctas_per_sm = 1;
    k.merge = sim::MergeOrder::all_at_once;
    k.compute_overlaps_loads = true;
    k.tensor_core_rows_min = 8;  // up to 8 rows the kernel keeps one half of each m16 tile (no second row per lane)
    k.bytes_in_flight_per_sm = 65536;
    k.stream_latency_ns = 800;
    k.latency_knee_exponent = 2;
    k.compute_overlap_loss = 0.3;
    k.compute_drain_tokens = 64;  // the pipeline's last blocks, computed after the stream (a few 16-token blocks)
    k.bandwidth_over_copy = 1.0;
    k.sm_latency_spread = 0.3;
    k.idle_sms_bandwidth_loss = 0.05;  // fitted from here (a start of 0 leaves the term out)
    k.reread_fraction = 0.5;
    k.reread_lag_mb = 50;  // about the L2's size: stream-k's blocks of a head read a token that far apart (fitted from here)
    k.compute_ns_per_kscore = 300;
    k.compute_ns_per_mmac = 10;
    k.launch_ns = 5000;
    k.cta_setup_ns = 1500;
    k.plan_wait_ns = 1000;
    k.stream_k_walk_ns = 500;
    k.segment_ns = 500;
    k.pipeline_fills_per_segment = 1;
    k.partial_store_ns = 500;
    k.partial_store_ns_per_kb = 50;
    k.output_store_ns = 700;
    k.merge_ns = 1000;
    k.merge_ns_per_partial = 200;
    k.merge_ns_per_kb = 50;
    k.reduce_launch_ns = 3000;
    k.reduce_cta_ns = 1000;
    k.reduce_ns_per_kb = 300;
    return k;
}

// One line of a shapes file (problem flags and --dtype) as a problem on `device`.
std::pair<ResolvedProblem, DType> problem_of_line(const std::string& line, const std::string& device) {
    ProblemFlags flags;
    flags.strategy = "all";
    std::string dtype = "fp16";
    po::options_description desc("flags");
    add_problem_flags(desc, flags, "text", true);
    desc.add_options()("dtype", po::value(&dtype));
    Args args = split_words(line);
    // A line holds a problem: the command's own flags there were printed into the predictions (--help) or dropped.
    for (const std::string& word : args) {
        if (word == "--help" || word == "-h") throw InputError(word, "is the command's flag, not a line's: a line holds one problem's flags");
    }
    args.push_back("--device");
    args.push_back(device);
    po::variables_map vm;
    parse_or_help(args, desc, vm, "", "");
    if (vm.count("output")) throw InputError("-o", "is the command's flag, not a line's: a line holds one problem's flags");
    if (!vm["format"].defaulted()) throw InputError("--format", "is the command's flag, not a line's: a line holds one problem's flags");
    const DType element = dtype_flag("--dtype", dtype, {DType::fp16, DType::bf16, DType::fp32});
    flags.auto_bytes_per_element = dtype_bytes(element);  // auto weighs at the line's dtype, as simulate does
    return {resolve_problem(flags, vm, "text", true), element};
}

// A replay of a sweep's runs (plan_runs, then predict_us: every plan held, each simulated), weighed against this
// machine's limits before anything is planned: the shapes are the file's, and one huge record would exhaust memory.
// A fit replays them once per step of each field; its time shows in its progress lines.
void check_replay_cost(const MeasuredSweep& sweep, const DeviceSpec& device, const sim::KernelModel& kernel) {
    const DeviceSpec planned = sim::device_for_kernel(device, kernel);
    Cost cost;
    for (const sim::MeasuredRun& r : sweep.runs) cost.add(simulation_cost(r.problem, planned, sim::replay_options(r), false));
    check_cost(cost, resource_limits());
}

int predict(const std::string& shapes_file, const DeviceSpec& device, const sim::KernelModel& kernel, const std::string& device_flag, std::ostream& out) {
    const std::vector<std::string> lines = read_problem_lines(shapes_file, "--predict");
    struct Line {
        ResolvedProblem problem;
        DType dtype;
        sim::KernelModel kernel;
    };
    // Every line resolved and weighed first: each against its own limits (a line may carry --max-memory), and the lines'
    // work summed against the command's (they run one after another; each was weighed alone, so N lines took N times
    // the limit).
    std::vector<Line> resolved;
    Cost all;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        // Each line as `simulate --kernel` plays it: its own --ctas-per-sm stands, and a plan auto chose is the one played.
        try {
            const std::vector<std::string> words = split_words(line);
            const auto has = [&](const std::string& flag) {  // as a word of its own or joined to its value (--flag=value)
                return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return w == flag || w.rfind(flag + "=", 0) == 0; });
            };
            if (has("--device")) throw InputError("--device", "is calibrate's own flag, for every line: leave it out of the lines");
            auto [p, dtype] = problem_of_line(line, device_flag);
            sim::KernelModel k = kernel;
            if (has("--ctas-per-sm")) k.ctas_per_sm = 0;  // the line's CTAs per SM, not the kernel's
            p.device = sim::device_for_kernel(p.device, k);
            const Cost cost = simulation_report_cost(p.problem, p.device, p.plan, p.strategies, false);
            check_cost(cost, p.limits);
            all.then(cost);
            resolved.push_back({std::move(p), dtype, k});
        } catch (const InputError& e) {
            throw InputError({{"--predict", shapes_file + ", problem line " + std::to_string(i + 1)}}, e.what());
        } catch (const po::error& e) {
            throw InputError({{"--predict", shapes_file + ", problem line " + std::to_string(i + 1)}}, e.what());
        }
    }
    try {
        check_cost(all, resource_limits());
    } catch (const InputError& e) {
        throw InputError({{"--predict", shapes_file + " (" + std::to_string(lines.size()) + " lines in all)"}}, e.what());
    }
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        const ResolvedProblem& p = resolved[i].problem;
        const DType dtype = resolved[i].dtype;
        const sim::KernelModel& k = resolved[i].kernel;
        try {
            json results = json::array();
            for (Strategy s : p.strategies) {
                const Schedule plan = p.make_plan(s);
                sim::SimOptions so;
                so.bytes_per_element = dtype_bytes(dtype);
                so.kernel = &k;
                results.push_back({{"strategy", std::string(strategy_name(s))}, {"grid", plan.grid}, {"predicted_us", sim::simulate(plan, so).makespan_ns / 1e3}});
            }
            out << json{{"flags", line}, {"device", device.name}, {"kernel", kernel.name}, {"results", results}}.dump() << "\n";
        } catch (const InputError& e) {
            throw InputError({{"--predict", shapes_file + ", problem line " + std::to_string(i + 1)}}, e.what());
        } catch (const po::error& e) {
            throw InputError({{"--predict", shapes_file + ", problem line " + std::to_string(i + 1)}}, e.what());
        }
    }
    return exit_ok;
}

// The records of runs `cuda bench` could not make ({"flags", "error"} lines): skipped, and said so.
void note_skipped(std::ostream& out, const MeasuredSweep& sweep, const DeviceSpec& device) {
    if (sweep.refused > 0) out << "(" << sweep.refused << " error record" << (sweep.refused == 1 ? "" : "s") << " of runs cuda bench refused: skipped)\n";
    // Runs of one GPU replayed on another's file (none of its "cuda_names" in the GPU the runs name): the plans and the
    // memory law are that other GPU's.
    const bool named = std::any_of(device.cuda_names.begin(), device.cuda_names.end(),
                                   [&](const std::string& n) { return sweep.gpu.find(n) != std::string::npos; });
    if (!sweep.gpu.empty() && !device.cuda_names.empty() && !named) {
        out << "(the runs were measured on " << sweep.gpu << ", which " << device.name << " does not describe: replayed on " << device.name << ")\n";
    }
}

void print_fit(std::ostream& out, sim::KernelModel start, sim::FitReport fit, const std::vector<sim::FitParameter>& params) {
    out << "fitted in " << fit.iterations << " iterations; rms of log(predicted / measured) " << std::setprecision(3) << fit.rms_log_error
        << " (the robust loss it lowers: " << fit.loss << ")\n"
        << std::left << std::setw(34) << "field" << std::right << std::setw(12) << "start" << std::setw(12) << "fitted" << "\n";
    for (const sim::FitParameter& p : params) {
        out << std::left << std::setw(34) << p.name << std::right << std::setw(12) << std::setprecision(4) << *p.field(start) << std::setw(12)
            << *p.field(fit.kernel) << "\n";
    }
}

// The start with `settings` (KEY=VALUE, a top-level number of the kernel file) applied: a new term's first guess.
sim::KernelModel with_settings(const sim::KernelModel& start, const std::vector<std::string>& settings) {
    if (settings.empty()) return start;
    json j = kernel_to_json(start);
    for (const std::string& setting : settings) {
        const std::size_t eq = setting.find('=');
        // KEY as the fit prints it: a top-level number, or OBJECT.FIELD inside one (cta_ns_per_kb_by_path.d128)
        const std::string key = setting.substr(0, eq);
        const std::size_t dot = key.find('.');
        json* at = nullptr;
        if (dot == std::string::npos && j.contains(key)) at = &j[key];
        else if (dot != std::string::npos && j.contains(key.substr(0, dot)) && j[key.substr(0, dot)].is_object() && j[key.substr(0, dot)].contains(key.substr(dot + 1)))
            at = &j[key.substr(0, dot)][key.substr(dot + 1)];
        if (eq == std::string::npos || at == nullptr || !at->is_number()) {
            throw InputError("--set " + setting, "expected KEY=VALUE, KEY a number of the kernel file as the fit prints it (e.g. reread_lag_mb=50, "
                                                 "cta_ns_per_kb_by_path.d128=12)");
        }
        const std::string text = setting.substr(eq + 1);
        double value = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) throw InputError("--set " + setting, "expected a finite number after =");
        if (at->is_number_integer() && value != std::floor(value)) throw InputError("--set " + setting, "this field takes a whole number");
        if (at->is_number_integer()) *at = static_cast<std::int64_t>(value);
        else *at = value;
    }
    try {
        sim::KernelModel k = kernel_from_text(j.dump(), "the start with --set");
        sim::check_kernel_model(k);
        return k;
    } catch (const InputError& e) {  // a value out of its range: named by the --set that gave it
        std::string given;
        for (const std::string& setting : settings) given += (given.empty() ? "" : " ") + std::string("--set ") + setting;
        throw InputError(given, e.reason());
    }
}

}  // namespace

int calibrate_main(const Args& args) {
    std::vector<std::string> measured, checks, held, only, settings;
    std::string device_name = "h100-sxm", kernel_name, start_name, name = "leanattn", predict_file, output, format = "text", fitted_note, runs_file;
    int iterations = 40;
    double loss_scale = sim::default_loss_scale;
    po::options_description desc("flags");
    desc.add_options()("measured", po::value(&measured), "JSONL of `cuda bench --shapes` to fit on (repeat the flag for rounds of one sweep; FILE.xz, or FILE kept as FILE.xz, reads decompressed)")(
        "check", po::value(&checks), "JSONL of a sweep to check the model on, never fitted (repeat for its rounds: their spread is the noise)")(
        "predict", po::value(&predict_file), "a shapes file (problem flags per line): write each line's predicted time per strategy as JSONL")(
        "device", po::value(&device_name)->default_value(device_name), "the GPU the runs were (or will be) measured on: a name in data/devices or a file")(
        "kernel", po::value(&kernel_name), "--check without --measured, --predict: the kernel model (a data/kernels name, a .json file, or paper)")(
        "start", po::value(&start_name), "--measured: the kernel model the fit starts from (default: a built-in guess for leanattn's kernel)")(
        "name", po::value(&name)->default_value(name), "--measured: the fitted model's name")(
        "note", po::value(&fitted_note), "--measured: written as the model's \"fitted\" text (what, where, when)")(
        "hold", po::value(&held), "--measured: keep this field at the start's value, not fitted (repeat for more; the field names the fit prints)")(
        "fit", po::value(&only), "--measured: fit only this field, every other held at the start's value (repeat for more): a new term fitted alone")(
        "set", po::value(&settings), "--measured: start with KEY=VALUE in the start's kernel file (repeat for more), e.g. a new term's first guess")(
        "iterations", po::value(&iterations)->default_value(iterations), "--measured: at most this many Levenberg-Marquardt iterations")(
        "loss-scale", po::value(&loss_scale)->default_value(loss_scale, "0.1"),
        "--measured: the robust loss's scale on log(predicted / measured) (Cauchy's): runs off by more weigh less;\n"
        "larger weighs the worst runs more; 0: plain least squares, else 0.001..10")(
        "runs", po::value(&runs_file), "--check: also write each checked run, measured beside predicted, to this file (JSONL)")(
        "format", po::value(&format)->default_value(format), "text|json: the report on stdout")(
        "output,o", po::value(&output), "--measured: write the fitted kernel model here (JSON); --predict: the predictions");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn calibrate --measured FILE.jsonl... [--check FILE.jsonl...] -o KERNEL.json | --kernel K --check FILE... | --kernel K --predict SHAPES -o FILE",
                       "Fits a kernel model (data/kernels: what a decode kernel costs on a GPU, beside the device file that says\n"
                       "what the GPU is) to decode times measured by `leanattn cuda bench --shapes`, so that `leanattn simulate\n"
                       "--kernel` predicts the kernel; checks a model on a sweep it never saw (errors, waves, fastest strategy,\n"
                       "a plain roofline beside it); or predicts a sweep before it is measured. docs/calibration.md.\n\n"
                       "  leanattn calibrate --measured h100-train.jsonl --check h100-heldout-1.jsonl --check h100-heldout-2.jsonl -o my-fit.json\n"
                       "  leanattn calibrate --kernel leanattn-h100 --device h200 --predict data/calibration/heldout-shapes.txt -o h200-predicted.jsonl")) {
        return exit_ok;
    }
    if (format != "text" && format != "json") throw InputError("--format " + format, "expected text or json");
    if (iterations < 0 || iterations > 1000) throw InputError("--iterations " + std::to_string(iterations), "must lie in 0..1000");
    // Below a tenth of a percent every run weighs as an outlier, and the weights underflow (below ~1e-154 the fit's steps
    // made kernel models no simulation can play).
    if (!(loss_scale == 0.0 || (loss_scale >= 1e-3 && loss_scale <= 10.0))) {
        throw InputError("--loss-scale " + json(loss_scale).dump(), "must be 0 (plain least squares) or lie in 0.001..10");
    }
    if (!runs_file.empty() && checks.empty()) throw InputError("--runs", "needs --check (the runs it writes are the checked ones)");
    // The output file's refusals name `-o PATH`: --runs's are its own (a folder given to --runs was blamed on -o).
    const auto as_runs_flag = [&](const auto& write) {
        try {
            write();
        } catch (const InputError& e) {
            throw InputError("--runs " + runs_file, e.reason());
        }
    };
    if (!runs_file.empty()) as_runs_flag([&] { check_output_target(runs_file); });  // before the check's work
    // A fit's own flags outside a fit, or --kernel in one (it starts from --start), would be dropped without a word.
    if (measured.empty()) {
        for (const char* flag : {"start", "note", "hold", "fit", "set", "iterations", "loss-scale"}) {
            if (vm.count(flag) && !vm[flag].defaulted()) throw InputError(std::string("--") + flag, "only applies to a fit (--measured)");
        }
        if (!vm["name"].defaulted()) throw InputError("--name", "only applies to a fit (--measured)");
    } else if (!kernel_name.empty()) {
        throw InputError("--kernel " + kernel_name + " with --measured", "a fit starts from --start (its --check sweeps are checked on the fitted model)");
    }
    if (!predict_file.empty() && !vm["format"].defaulted()) throw InputError("--format", "--predict writes JSON lines (-o or stdout); --format is the report's");
    // No file written over another this run reads or writes.
    {
        std::vector<std::pair<std::string, std::string>> files;  // (flag, path)
        // What is read is the file open_input_file takes: FILE.xz where only it exists (bench/results/raw keeps sweeps so).
        for (const std::string& f : measured) files.emplace_back("--measured", input_file_read(f));
        for (const std::string& f : checks) files.emplace_back("--check", input_file_read(f));
        if (!predict_file.empty()) files.emplace_back("--predict", input_file_read(predict_file));
        for (const auto& [flag, written] : {std::pair{std::string("-o"), output}, std::pair{std::string("--runs"), runs_file}}) {
            if (written.empty() || written == "-") continue;
            for (const auto& [other, path] : files) {
                std::error_code ec, ea, eb;  // the same file, or (not there yet) the same path
                const bool same = std::filesystem::equivalent(written, path, ec) ||
                                  std::filesystem::weakly_canonical(written, ea) == std::filesystem::weakly_canonical(path, eb);
                if (same) throw InputError(flag + " " + written, "is " + other + "'s file too: it would be written over");
            }
            files.emplace_back(flag, written);
        }
    }
    const DeviceSpec device = load_device(device_name);
    if (!predict_file.empty()) {
        if (kernel_name.empty()) throw InputError("--predict", "needs --kernel (the model to predict with)");
        if (!measured.empty() || !checks.empty()) throw InputError("--predict", "goes alone: predictions are made before any measurement");
        const sim::KernelModel kernel = load_kernel(kernel_name, device);
        int status = exit_ok;
        write_output(output, [&](std::ostream& out) { status = predict(predict_file, device, kernel, device_name, out); });
        return status;
    }
    if (measured.empty() && checks.empty()) throw InputError("leanattn calibrate", "needs --measured (fit), --check (with --kernel) or --predict; see --help");
    if (measured.empty() && kernel_name.empty()) throw InputError("--check", "needs --kernel (the model to check) or --measured (a fit to check)");
    if (!measured.empty() && output.empty()) throw InputError("--measured", "needs -o FILE for the fitted kernel model");
    if (measured.empty() && !output.empty()) {
        throw InputError("-o " + output, "is where --measured writes its fitted kernel model or --predict its predictions; --check prints its report "
                                         "(--runs FILE writes the checked runs)");
    }

    sim::KernelModel kernel;
    json report;
    std::ostringstream text;
    std::string fitted;  // the fitted kernel file, written to -o once the checks, if any, have run too
    const std::optional<MeasuredSweep> check_sweep = checks.empty() ? std::nullopt : std::optional(read_measured(checks, "--check"));
    if (!measured.empty()) {
        const MeasuredSweep sweep = read_measured(measured, "--measured");
        if (!held.empty() && !only.empty()) throw InputError("--hold", "goes without --fit (--fit names every field fitted)");
        const sim::KernelModel start = with_settings(start_name.empty() ? starting_guess(name) : load_kernel(start_name, device), settings);
        check_replay_cost(sweep, device, start);
        if (check_sweep) check_replay_cost(*check_sweep, device, start);  // before the fit, not after it
        const sim::PlannedRuns planned = sim::plan_runs(sweep.runs, device, start);
        std::vector<sim::FitParameter> params = sim::default_fit_parameters(planned, start);
        const auto find = [&](const std::string& flag, const std::string& field) {
            const auto it = std::find_if(params.begin(), params.end(), [&](const sim::FitParameter& p) { return p.name == field; });
            if (it == params.end()) throw InputError(flag + " " + field, "is not a field this fit moves (the fit prints their names)");
            return it;
        };
        for (std::size_t i = 0; i < held.size(); ++i) {
            if (std::find(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(i), held[i]) != held.begin() + static_cast<std::ptrdiff_t>(i)) {
                throw InputError("--hold " + held[i], "is given twice");
            }
            params.erase(find("--hold", held[i]));
        }
        for (const std::string& field : only) (void)find("--fit", field);
        if (!only.empty()) {
            std::erase_if(params, [&](const sim::FitParameter& p) { return std::find(only.begin(), only.end(), p.name) == only.end(); });
        }
        std::cerr << "calibrate: fitting " << params.size() << " fields to " << sweep.runs.size() << " runs of " << sweep.problems << " problems ("
                  << sweep.gpu << ")\n";
        sim::FitReport fit = sim::fit_kernel(planned, start, params, iterations, [](int it, double rms) {
            std::cerr << "  iteration " << it << ": loss " << rms << "\n";
        }, loss_scale);
        fit.kernel.name = name;
        fit.kernel.description = "leanattn's decode kernel, fitted by `leanattn calibrate` on " + device.name;
        kernel = fit.kernel;
        print_fit(text, start, fit, params);
        const CalibrationCheck train = check_predictions("fit (" + measured.front() + ")", planned, sim::predict_us(planned, kernel), kernel, device,
                                                         device.copy_bandwidth_gb_per_s > 0 ? device.copy_bandwidth_gb_per_s : sweep.copy_gbps);
        write_check_text(text, train);
        note_skipped(text, sweep, device);
        report["fit"] = {{"iterations", fit.iterations}, {"rms_log_error", fit.rms_log_error}, {"loss", fit.loss}, {"kernel", kernel_to_json(kernel, fitted_note)},
                         {"check", check_to_json(train)}, {"skipped_error_records", sweep.refused}};
        fitted = kernel_to_json(kernel, fitted_note).dump(2) + "\n";
    } else {
        kernel = load_kernel(kernel_name, device);
    }
    if (check_sweep) {
        const MeasuredSweep& sweep = *check_sweep;
        check_replay_cost(sweep, device, kernel);
        const sim::PlannedRuns planned = sim::plan_runs(sweep.runs, device, kernel);
        const double copy = device.copy_bandwidth_gb_per_s > 0 ? device.copy_bandwidth_gb_per_s : sweep.copy_gbps;
        const std::vector<double> predicted = sim::predict_us(planned, kernel);
        const CalibrationCheck check = check_predictions("check (" + checks.front() + (checks.size() > 1 ? ", " + std::to_string(checks.size()) + " rounds" : "") + ")",
                                                         planned, predicted, kernel, device, copy);
        write_check_text(text, check);
        note_skipped(text, sweep, device);
        if (!runs_file.empty()) as_runs_flag([&] { write_output(runs_file, [&](std::ostream& out) { write_checked_runs(out, planned, predicted); }); });
        report["check"] = check_to_json(check);
        report["check"]["skipped_error_records"] = sweep.refused;
    }
    if (!fitted.empty()) write_output(output, [&](std::ostream& out) { out << fitted; });
    commit_output("", format == "json" ? report.dump(2) + "\n" : text.str());
    return exit_ok;
}

}  // namespace leanattn::app

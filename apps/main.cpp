// main.cpp — `leanattn <subcommand> …`: dispatch, --help, --version and the error contract.
#include <boost/program_options/errors.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "flag_names.hpp"
#include "output_file.hpp"

#ifndef LEANATTN_VERSION
#define LEANATTN_VERSION "unknown"
#endif

namespace {

using namespace leanattn::app;

struct Subcommand {
    const char* name;
    const char* summary;
    int (*main)(const Args&);
};

#if !defined(LEANATTN_WITH_CUDA)
// A build without CUDA keeps the subcommand's name, to say why it cannot run rather than that it does not exist.
int cuda_absent_main(const Args&) {
    throw leanattn::InputError("leanattn cuda", "this leanattn was built without CUDA (CMake found no nvcc, or was given -DLEANATTN_CUDA=OFF): "
                                                "install the CUDA toolkit and build again (README, Build) to run the kernels");
}
#endif

const Subcommand subcommands[] = {
    {"schedule", "plan a problem and show how its LeanTiles land on the SMs (text, json, svg, html)", schedule_main},
    {"simulate", "play each strategy out on a model of the GPU: makespan, occupancy, per-SM timelines", simulate_main},
    {"sweep", "simulate over a range of ctx|heads|batch|ragged: speedup curves (csv, json, svg)", sweep_main},
    {"calibrate", "fit a kernel model to measured decode times; check it; predict a sweep on another GPU", calibrate_main},
    {"devices", "list the GPUs in data/devices", devices_main},
    {"models", "list the model attention shapes in data/models", models_main},
    {"cpu", "run plans for real on OpenMP threads, checked against a float64 reference", cpu_main},
#if defined(LEANATTN_WITH_CUDA)
    {"cuda", "validate|bench: run the decode kernels on this GPU, checked against float64 / timed against the floor", cuda_main},
#else
    {"cuda", "validate|bench: not in this build (made without CUDA: see `leanattn cuda`)", cuda_absent_main},
#endif
};

void print_usage(std::ostream& out) {
    out << "leanattn " << LEANATTN_VERSION << " — LeanAttention's stream-K decode attention: plan, run, simulate\n\n"
        << "usage: leanattn <subcommand> [flags]      leanattn <subcommand> --help for its flags\n\nsubcommands:\n";
    for (const Subcommand& s : subcommands) {
        std::string name = s.name;
        name.resize(14, ' ');
        out << "  " << name << s.summary << "\n";
    }
    out << "\nexit codes: 0 success, 1 a check failed, 2 bad input, 3 an internal error (a bug: please report it)\n"
        << "example: leanattn schedule --device paper-5sm --batch 1 --heads 2 --head-dim 64 --ctx 1280\n";
}

// Runs one subcommand and maps everything it can throw to the exit-code contract: nothing escapes main.
// bad_alloc counts as internal because every allocation is estimated and bounded before it is made.
int run_guarded(const Subcommand& s, const Args& args) {
    try {
        return s.main(args);
    } catch (const leanattn::InputError& e) {
        print_error(cli_message(e));
        return exit_bad_input;
    } catch (const boost::program_options::error& e) {
        // `cuda validate` and `cuda bench` list their own flags: name the page that has them.
        const bool cuda_action = s.name == std::string("cuda") && !args.empty() && (args[0] == "validate" || args[0] == "bench");
        print_error(std::string(e.what()) + " (see leanattn " + s.name + (cuda_action ? " " + args[0] : std::string()) + " --help)");
        return exit_bad_input;
    } catch (const std::bad_alloc&) {
        print_error("internal: out of memory although the estimate allowed this run (please report the command)");
    } catch (const std::exception& e) {
        print_error(std::string("internal: ") + e.what() + " (please report the command)");
    } catch (...) {
        print_error("internal: an exception of unknown type (please report the command)");
    }
    return exit_internal;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (all.empty()) {
        print_usage(std::cerr);
        return exit_bad_input;
    }
    const bool help = all[0] == "--help" || all[0] == "-h" || all[0] == "help";
    if (help || all[0] == "--version") {
        std::ostringstream text;
        if (help) print_usage(text);
        else text << "leanattn " << LEANATTN_VERSION << "\n";
        try {
            commit_output("", text.str());  // a failed write (a full disk) is an error, as any output's
        } catch (const leanattn::InputError& e) {
            print_error(cli_message(e));
            return exit_bad_input;
        }
        return exit_ok;
    }
    for (const Subcommand& s : subcommands) {
        if (all[0] == s.name) return run_guarded(s, Args(all.begin() + 1, all.end()));
    }
    print_error("unknown subcommand '" + all[0] + "' (see leanattn --help)");
    return exit_bad_input;
}

// problem_options.hpp — the problem flags every subcommand shares (README, "Problem flags").
//
// Flags arrive as text and are parsed here, so that every bad value is refused the same way:
// `error: --batch abc (not an integer)`, exit 2.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cost_estimate.hpp"
#include "core/device_spec.hpp"
#include "core/dtype.hpp"
#include "core/tensor_layout.hpp"
#include "core/problem.hpp"
#include "core/schedule.hpp"
#include "core/strategy.hpp"
#include "auto_strategy.hpp"

namespace leanattn::app {

namespace po = boost::program_options;

struct ProblemFlags {
    std::string device = "h100-sxm";
    std::string device_default_shown;  // --help's text for --device's default where it is not `device` (cuda: this GPU's file)
    std::string model;
    std::string batch = "1";
    std::string heads = "32";
    std::string kv_heads;   // empty: = heads
    std::string head_dim = "128";
    std::string ctx = "4096";
    std::string q_len = "1";
    std::string tile;       // empty: the paper's default for the head dim
    std::string tile_rows;  // empty: default_tile_rows (16)
    std::string strategy = "stream-k";
    std::string splits;     // empty: FlashAttention-2's heuristic
    std::string grid;       // empty: resident CTAs
    std::string stream_k_rule = "aligned";
    std::string snap;       // empty: the aligned rule's cost model chooses
    std::string plan_for = "lengths";  // --strategy auto: "lengths" (these) or "capacity" (live lengths up to them)
    std::string ctas_per_sm;
    std::string format = "text";
    std::string output;     // -o FILE; empty: stdout
    std::string max_memory; // empty: LEANATTN_MAX_MEMORY, else half the available memory (resource_limits.hpp)
    std::string max_work;   // empty: LEANATTN_MAX_WORK, else the default
    // Not a flag here: the kind of step the plan will run as (`cuda --lengths`), which --strategy auto weighs for.
    StepLengths step_lengths = StepLengths::device;
    // Not a flag here: the K and V element size --strategy auto weighs at (`simulate --dtype`; the GPU kernels' 2 elsewhere).
    std::int64_t auto_bytes_per_element = 2;
    // Not a flag: `sweep` weighs --strategy auto at each of its values, beside the three strategies, so resolving
    // the problem takes all three and chooses nothing (ResolvedProblem::auto_at_each_value says it was asked).
    bool auto_at_each_value = false;
};

// Adds the flags to `desc`. `formats` lists the accepted --format values, e.g. "text|json|svg|html";
// `allow_all` lets --strategy take `all`.
void add_problem_flags(po::options_description& desc, ProblemFlags& flags, const std::string& formats, bool allow_all);

struct ResolvedProblem {
    Problem problem;
    DeviceSpec device;
    PlanOptions plan;                 // strategy is the first of `strategies`
    std::vector<Strategy> strategies; // one, or all three for `all`
    std::string format;
    CostLimits limits;                // what this run may allocate and do; checked before anything is paid
    std::optional<AutoChoice> auto_choice;  // --strategy auto: what was chosen and why (describe_auto)
    bool auto_at_each_value = false;        // --strategy auto where ProblemFlags::auto_at_each_value: left to the caller

    // The plan of `strategy` (with `plan`'s options): with --strategy auto, the very plan auto weighed (not planned
    // again: stream-k's is the aligned rule's search).
    Schedule make_plan(Strategy strategy) const;
};

// Turns flags into a checked problem, device, plan options and limits; throws InputError naming the flag.
// The problem's own size (its request list) is checked against the limits before the list is built.
ResolvedProblem resolve_problem(const ProblemFlags& flags, const po::variables_map& vm, const std::string& formats, bool allow_all);

// Integer flag parsing shared by all subcommands: refuses non-numbers, values out of range and 64-bit overflow.
std::int64_t parse_positive(const std::string& flag, const std::string& text);
std::int64_t parse_non_negative(const std::string& flag, const std::string& text);
std::vector<std::int64_t> parse_positive_list(const std::string& flag, const std::string& text);

// The limits of this run: --max-memory and --max-work over the environment's and the machine's.
CostLimits limits_flags(const std::string& max_memory, const std::string& max_work);

// A --dtype value among `allowed` ("fp32", "fp16", "bf16"); InputError naming the flag otherwise.
DType dtype_flag(const std::string& flag, const std::string& text, std::initializer_list<DType> allowed);
// A --layout value: padded, token-major, paged or ragged.
CacheLayout layout_flag(const std::string& flag, const std::string& text);

}  // namespace leanattn::app

#include "problem_options.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <sstream>

#include "core/input_error.hpp"
#include "auto_strategy.hpp"
#include "data_catalog.hpp"
#include "resource_limits.hpp"

namespace leanattn::app {

namespace {

std::int64_t parse_integer(const std::string& flag, const std::string& text) {
    std::int64_t value = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    const auto [end, ec] = std::from_chars(first, last, value);
    if (ec == std::errc::result_out_of_range) throw InputError(flag + " " + text, "does not fit in a 64-bit integer");
    if (ec != std::errc() || end != last || text.empty()) throw InputError(flag + " " + text, "not an integer");
    return value;
}

}  // namespace

std::int64_t parse_positive(const std::string& flag, const std::string& text) {
    const std::int64_t value = parse_integer(flag, text);
    if (value <= 0) throw InputError(flag + " " + text, "must be a positive integer");
    return value;
}

std::int64_t parse_non_negative(const std::string& flag, const std::string& text) {
    const std::int64_t value = parse_integer(flag, text);
    if (value < 0) throw InputError(flag + " " + text, "must be a non-negative integer");
    return value;
}

std::vector<std::int64_t> parse_positive_list(const std::string& flag, const std::string& text) {
    std::vector<std::int64_t> values;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        try {
            values.push_back(parse_positive(flag, item));
        } catch (const InputError& e) {  // the whole list, and which of its items is wrong
            throw InputError(flag + " " + text, "item " + std::to_string(values.size() + 1) + " \"" + item + "\": " + e.reason());
        }
    }
    if (values.empty() || text.back() == ',') throw InputError(flag + " " + text, "expected a comma-separated list of positive integers");
    return values;
}

DType dtype_flag(const std::string& flag, const std::string& text, std::initializer_list<DType> allowed) {
    std::string names;
    for (DType d : allowed) {
        if (parse_dtype(text) == d) return d;
        names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
    }
    throw InputError(flag + " " + text, "expected one of " + names);
}

CacheLayout layout_flag(const std::string& flag, const std::string& text) {
    if (const auto layout = parse_cache_layout(text)) return *layout;
    throw InputError(flag + " " + text, "expected padded, token-major, paged or ragged");
}

void add_problem_flags(po::options_description& desc, ProblemFlags& f, const std::string& formats, bool allow_all) {
    const std::string strategies = std::string(allow_all ? "stream-k|fixed-split|no-split|auto|all" : "stream-k|fixed-split|no-split|auto") +
                                   ": auto plays each on the device's kernel model and keeps the fastest (docs/calibration.md)";
    desc.add_options()
        ("device", po::value(&f.device)->default_value(f.device, f.device_default_shown.empty() ? f.device : f.device_default_shown),
         "GPU: a name from `leanattn devices`, or a device .json file")
        ("model", po::value(&f.model), "fill --heads/--kv-heads/--head-dim from a model (`leanattn models`); explicit flags win")
        ("batch", po::value(&f.batch)->default_value(f.batch), "requests in the batch")
        ("heads", po::value(&f.heads)->default_value(f.heads), "query heads")
        ("kv-heads", po::value(&f.kv_heads), "key/value heads (GQA); default = --heads, or with --model the model's")
        ("head-dim", po::value(&f.head_dim)->default_value(f.head_dim), "head dimension d")
        ("ctx", po::value(&f.ctx)->default_value(f.ctx), "context length: one value for all requests, or N1,N2,... one per request (ragged)")
        ("q-len", po::value(&f.q_len)->default_value(f.q_len), "query tokens per request decoded at once")
        ("tile", po::value(&f.tile), "LeanTile in tokens, a multiple of 16; default 256 for d <= 64, else 128 (the paper's)")
        ("tile-rows", po::value(&f.tile_rows),
         "query rows (query heads x new tokens) one output tile holds at most; a KV head with more is cut into row blocks that each read "
         "its K and V; default 16 (one tensor-core tile), or with --strategy auto what it predicts fastest (8 for 9-16 rows, "
         "32-128 for more); the GPU kernels hold up to 128, 64 at d 256")
        ("strategy", po::value(&f.strategy)->default_value(f.strategy), strategies.c_str())
        ("splits", po::value(&f.splits), "fixed-split only: splits per output (at most the longest output's LeanTiles); default FlashAttention-2's heuristic")
        ("grid", po::value(&f.grid), "stream-k only: CTAs to launch; default: the aligned rule's cost model picks among SMs x CTAs-per-SM, k CTAs on every output, and halves of the first (docs/planner.md); the paper's rule takes SMs x CTAs-per-SM (at most the LeanTiles)")
        ("stream-k-rule", po::value(&f.stream_k_rule)->default_value(f.stream_k_rule),
         "stream-k only: aligned (CTA starts move onto output boundaries where a cost model says it pays) | paper (the published plan)")
        ("snap", po::value(&f.snap), "stream-k aligned only, for experiments: LeanTiles a CTA start may move onto an output boundary (0 = the paper's plan)")
        ("ctas-per-sm", po::value(&f.ctas_per_sm), "override the device's resident CTAs per SM")
        ("format", po::value(&f.format)->default_value(f.format), formats.c_str())
        ("output,o", po::value(&f.output), "write to FILE instead of stdout (written whole or not at all)")
        ("max-memory", po::value(&f.max_memory), "refuse runs estimated to need more memory than this (512M, 16G); default LEANATTN_MAX_MEMORY, else half the available memory")
        ("max-work", po::value(&f.max_work), "refuse runs estimated to take more steps than this (1e9 is about a second of one core); default LEANATTN_MAX_WORK, else 3e11");
    // A command that weighs auto at each value's own lengths (sweep) offers no choice of lengths.
    if (!f.auto_at_each_value) {
        desc.add_options()("plan-for", po::value(&f.plan_for)->default_value(f.plan_for),
                           "--strategy auto: lengths (weigh the plans at --ctx) or capacity (--ctx is a cache's capacity whose steps run at live "
                           "lengths up to it: weigh each plan there and at ragged lengths below, as the library's DecodePlan does)");
    }
}

CostLimits limits_flags(const std::string& max_memory, const std::string& max_work) {
    CostLimits limits = resource_limits("--max-memory", "--max-work");
    if (!max_memory.empty()) {
        const auto bytes = parse_byte_size(max_memory);
        if (!bytes) throw InputError("--max-memory " + max_memory, "expected a size such as 4096, 512M or 16G");
        limits.max_memory_bytes = *bytes;
        limits.memory_source = "--max-memory";
    }
    if (!max_work.empty()) {
        const auto work = parse_count(max_work);
        if (!work) throw InputError("--max-work " + max_work, "expected a count of steps such as 1e9 (about a second)");
        limits.max_work = *work;
        limits.work_source = "--max-work";
    }
    return limits;
}

Schedule ResolvedProblem::make_plan(Strategy strategy) const {
    if (auto_choice && strategy == plan.strategy && auto_choice->choice.plan.device == device) return auto_choice->choice.plan;
    PlanOptions options = plan;
    options.strategy = strategy;
    return make_schedule(problem, device, options);
}

ResolvedProblem resolve_problem(const ProblemFlags& f, const po::variables_map& vm, const std::string& formats, bool allow_all) {
    ResolvedProblem r;
    r.limits = limits_flags(f.max_memory, f.max_work);
    // Format first: it needs no files.
    {
        std::stringstream allowed(formats);
        std::string item;
        bool ok = false;
        while (std::getline(allowed, item, '|')) ok = ok || item == f.format;
        if (!ok) throw InputError("--format " + f.format, "expected one of " + formats);
        r.format = f.format;
    }
    const bool automatic = f.strategy == "auto";
    r.auto_at_each_value = automatic && f.auto_at_each_value;
    if ((f.strategy == "all" && allow_all) || r.auto_at_each_value) {
        r.strategies = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};
    } else if (automatic) {
        r.strategies = {Strategy::stream_k};  // replaced below, once the problem and the device are known
    } else if (auto s = parse_strategy(f.strategy)) {
        r.strategies = {*s};
    } else {
        throw InputError("--strategy " + f.strategy, std::string("expected ") + (allow_all ? "stream-k, fixed-split, no-split, auto or all" : "stream-k, fixed-split, no-split or auto"));
    }
    r.plan.strategy = r.strategies.front();

    Problem& p = r.problem;
    if (vm.count("model") && f.model.empty()) throw InputError("--model \"\"", "expected a model name or a .json file");
    if (!f.model.empty()) {
        const ModelShape m = load_model(f.model);
        p.q_heads = m.q_heads;
        p.kv_heads = m.kv_heads;
        p.head_dim = m.head_dim;
    }
    const bool model = !f.model.empty();
    if (!model || !vm["heads"].defaulted()) p.q_heads = parse_positive("--heads", f.heads);
    // A model keeps its KV heads when only --heads changes: `--model llama-3-8b --heads 64` is 64 query heads on its 8.
    if (!f.kv_heads.empty()) {
        p.kv_heads = parse_positive("--kv-heads", f.kv_heads);
        // The heads came from the model: name it, not a --heads the user never typed.
        if (model && vm["heads"].defaulted() && p.q_heads % p.kv_heads != 0) {
            throw InputError("--kv-heads " + f.kv_heads, f.model + " has " + std::to_string(p.q_heads) +
                                                             " query heads: KV heads must divide them, or give --heads too");
        }
    } else if (!model) {
        p.kv_heads = p.q_heads;
    }
    else if (p.q_heads % p.kv_heads != 0)
        throw InputError("--heads " + f.heads, f.model + " has " + std::to_string(p.kv_heads) + " KV heads: query heads a multiple of them, or --kv-heads too");
    if (!model || !vm["head-dim"].defaulted()) p.head_dim = parse_positive("--head-dim", f.head_dim);
    p.batch = parse_positive("--batch", f.batch);
    if (p.batch > (std::int64_t{1} << 26)) throw InputError("--batch " + f.batch, "at most 67108864 requests");
    check_cost(request_list_cost(p.batch), r.limits);
    p.q_len = parse_positive("--q-len", f.q_len);
    p.tile = f.tile.empty() ? default_tile(p.head_dim) : parse_positive("--tile", f.tile);
    p.tile_rows = f.tile_rows.empty() ? 0 : parse_positive("--tile-rows", f.tile_rows);
    std::vector<std::int64_t> ctx = parse_positive_list("--ctx", f.ctx);
    if (ctx.size() == 1) ctx.assign(static_cast<std::size_t>(p.batch), ctx.front());
    if (static_cast<std::int64_t>(ctx.size()) != p.batch && p.batch > 0) {
        throw InputError("--ctx " + f.ctx, "gives " + std::to_string(ctx.size()) + " context lengths for a batch of " + std::to_string(p.batch) +
                                               "; give one value, or one per request");
    }
    p.ctx = std::move(ctx);
    check_problem(p);

    if (automatic && (!f.splits.empty() || !f.grid.empty() || !f.snap.empty())) {
        throw InputError("--strategy auto", "chooses the strategy and its splits itself: leave out --splits, --grid and --snap");
    }
    if (f.plan_for != "lengths" && f.plan_for != "capacity") throw InputError("--plan-for " + f.plan_for, "expected lengths or capacity");
    if (f.plan_for == "capacity" && !automatic) throw InputError("--plan-for capacity", "only applies to --strategy auto (the other strategies plan the same either way)");
    if (!f.splits.empty()) {
        if (r.plan.strategy != Strategy::fixed_split || r.strategies.size() > 1) throw InputError("--splits", "only applies to --strategy fixed-split");
        r.plan.splits = parse_positive("--splits", f.splits);
    }
    if (!f.grid.empty()) {
        if (r.plan.strategy != Strategy::stream_k || r.strategies.size() > 1) throw InputError("--grid", "only applies to --strategy stream-k");
        r.plan.grid = parse_positive("--grid", f.grid);
    }
    const bool stream_k = std::find(r.strategies.begin(), r.strategies.end(), Strategy::stream_k) != r.strategies.end();
    if (auto rule = parse_stream_k_rule(f.stream_k_rule)) {
        r.plan.stream_k_rule = *rule;
    } else {
        throw InputError("--stream-k-rule " + f.stream_k_rule, "expected aligned or paper");
    }
    if (vm.count("stream-k-rule") && !vm["stream-k-rule"].defaulted() && !stream_k) throw InputError("--stream-k-rule", "only applies to --strategy stream-k");
    if (!f.snap.empty()) {
        if (r.plan.strategy != Strategy::stream_k || r.strategies.size() > 1) throw InputError("--snap", "only applies to --strategy stream-k");
        if (r.plan.stream_k_rule != StreamKRule::aligned) throw InputError("--snap", "only applies to --stream-k-rule aligned (the paper's rule is snap 0)");
        r.plan.snap = parse_non_negative("--snap", f.snap);
    }
    r.device = load_device(f.device);
    if (!f.ctas_per_sm.empty()) r.device.ctas_per_sm = parse_positive("--ctas-per-sm", f.ctas_per_sm);
    check_device(r.device);
    if (automatic && !r.auto_at_each_value) {
        // Weighed with the kernel's CTAs per SM, which the plan shown and run then takes, unless --ctas-per-sm fixes them.
        const bool fixed_ctas = !f.ctas_per_sm.empty();
        const sim::PlannedLengths planned = f.plan_for == "capacity" ? sim::PlannedLengths::up_to_the_problems : sim::PlannedLengths::the_problems;
        r.auto_choice = choose_auto(p, r.device, f.auto_bytes_per_element, r.plan, r.limits, fixed_ctas, f.step_lengths, planned);
        r.plan = r.auto_choice->choice.options;
        if (r.auto_choice->choice.tile_rows > 0) p.tile_rows = r.auto_choice->choice.tile_rows;  // the tile rows auto chose
        r.strategies = {r.plan.strategy};
        r.device = sim::device_for_kernel(r.device, r.auto_choice->kernel);
        std::cerr << describe_auto(*r.auto_choice) << "\n";
    }
    return r;
}

}  // namespace leanattn::app

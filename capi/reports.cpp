// reports.cpp — `leanattn schedule` and `leanattn simulate` as JSON through the C ABI: the CLI's own
// writers, so a Python dict holds exactly what the command line prints.
#include <optional>
#include <string>

#include "auto_strategy.hpp"
#include "convert.hpp"
#include "core/cost_estimate.hpp"
#include "core/input_error.hpp"
#include "resource_limits.hpp"
#include "core/schedule_table.hpp"
#include "data_catalog.hpp"
#include "schedule_json.hpp"
#include "sim/simulation.hpp"
#include "simulation_report.hpp"
#include "status.hpp"

using namespace leanattn;

namespace {

DeviceSpec report_device(const leanattn_plan_options* options) {
    return app::load_device(options != nullptr && options->device != nullptr ? options->device : "h100-sxm");
}

// `plan_for`: NULL or "lengths" (the problem's own lengths), "capacity" (the lengths are a cache's capacities, whose
// steps run at live lengths up to them, as DecodePlan's: auto only, as the command line's --plan-for).
sim::PlannedLengths to_planned_lengths(const char* plan_for, const leanattn_plan_options* options) {
    const std::string value = plan_for != nullptr ? plan_for : "lengths";
    if (value != "lengths" && value != "capacity") throw InputError("plan_for " + value, "expected \"lengths\" or \"capacity\"");
    if (value == "capacity" && !capi::wants_auto(options)) {
        throw InputError("plan_for capacity", "only applies to strategy \"auto\" (the other strategies plan the same either way)");
    }
    return value == "capacity" ? sim::PlannedLengths::up_to_the_problems : sim::PlannedLengths::the_problems;
}

// A report's plan options, "auto" resolved as the command line does (the device then takes the kernel model's CTAs per
// SM, on which the choice was weighed). Auto may choose the tiles' rows (8-row tiles for KV heads of 9-16 rows, larger
// ones for more): `p` then takes them.
struct ReportPlan {
    PlanOptions options;
    nlohmann::ordered_json auto_choice;  // what auto weighed (app::auto_choice_json); null without auto
    std::optional<sim::KernelModel> kernel;  // the kernel model auto weighed with, which a simulation then plays; none without auto
};
ReportPlan report_plan(const leanattn_plan_options* options, Problem& p, DeviceSpec& device, std::int64_t bytes_per_element, sim::PlannedLengths planned,
                       const CostLimits& limits) {
    const app::StepLengths lengths = capi::to_step_lengths(options);  // checked whatever the strategy
    if (!capi::wants_auto(options)) return {capi::to_plan_options(options), nullptr, std::nullopt};
    const app::AutoChoice a = app::choose_auto(p, device, bytes_per_element, capi::to_plan_options(options), limits, false, lengths, planned);
    device = sim::device_for_kernel(device, a.kernel);
    if (a.choice.tile_rows > 0) p.tile_rows = a.choice.tile_rows;
    return {a.choice.options, app::auto_choice_json(a), a.kernel};
}

leanattn_status schedule_report(const leanattn_problem* problem, const leanattn_plan_options* options, const char* plan_for, char** json) {
    return capi::guarded([&] {
        if (json == nullptr) throw InputError("json", "is NULL");
        const CostLimits limits = app::resource_limits();
        Problem p = capi::to_problem(problem, limits);
        DeviceSpec device = report_device(options);
        const ReportPlan plan = report_plan(options, p, device, 2, to_planned_lengths(plan_for, options), limits);
        check_cost(schedule_report_cost(p, device, plan.options, ReportKind::json), limits);
        const Schedule s = make_schedule(p, device, plan.options);
        *json = capi::c_string(app::schedule_json(s, tabulate(s), plan.auto_choice));
    });
}

leanattn_status simulate_report(const leanattn_problem* problem, const leanattn_plan_options* options, leanattn_dtype dtype, const char* plan_for,
                                char** json) {
    return capi::guarded([&] {
        if (json == nullptr) throw InputError("json", "is NULL");
        const CostLimits limits = app::resource_limits();
        Problem p = capi::to_problem(problem, limits);
        DeviceSpec device = report_device(options);
        const bool all = options != nullptr && options->strategy != nullptr && std::string(options->strategy) == "all";
        leanattn_plan_options one = options != nullptr ? *options : leanattn_plan_options{};
        if (all) one.strategy = nullptr;
        const ReportPlan plan = report_plan(&one, p, device, dtype_bytes(capi::to_dtype(dtype)), to_planned_lengths(plan_for, &one), limits);
        const std::vector<Strategy> strategies =
            all ? std::vector<Strategy>{Strategy::stream_k, Strategy::fixed_split, Strategy::no_split} : std::vector<Strategy>{plan.options.strategy};
        check_cost(simulation_report_cost(p, device, plan.options, strategies, false), limits);
        sim::SimOptions sim_options;
        sim_options.bytes_per_element = dtype_bytes(capi::to_dtype(dtype));
        sim_options.kernel = plan.kernel ? &*plan.kernel : nullptr;  // auto's plan played under the model it was weighed with
        const std::vector<sim::SimResult> results = sim::simulate_strategies(p, device, plan.options, strategies, sim_options);
        const app::SimulationReport report{p, device, std::string(dtype_name(capi::to_dtype(dtype))), results, plan.auto_choice,
                                           plan.kernel ? plan.kernel->name : "paper"};
        *json = capi::c_string(app::simulation_to_json(report).dump(2));
    });
}

}  // namespace

extern "C" {

leanattn_status leanattn_schedule_json(const leanattn_problem* problem, const leanattn_plan_options* options, char** json) {
    return schedule_report(problem, options, nullptr, json);
}

leanattn_status leanattn_simulate_json(const leanattn_problem* problem, const leanattn_plan_options* options, leanattn_dtype dtype, char** json) {
    return simulate_report(problem, options, dtype, nullptr, json);
}

leanattn_status leanattn_schedule_json_plan_for(const leanattn_problem* problem, const leanattn_plan_options* options, const char* plan_for, char** json) {
    return schedule_report(problem, options, plan_for, json);
}

leanattn_status leanattn_simulate_json_plan_for(const leanattn_problem* problem, const leanattn_plan_options* options, leanattn_dtype dtype,
                                                const char* plan_for, char** json) {
    return simulate_report(problem, options, dtype, plan_for, json);
}

}  // extern "C"

// auto_strategy.hpp — `--strategy auto` for the CLI and the C ABI: the device file names the kernel model
// fitted for it ("kernel": a name in data/kernels); sim::choose_strategy plays the candidate plans under it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/cost_estimate.hpp"
#include "core/device_spec.hpp"
#include "core/problem.hpp"
#include "core/schedule.hpp"
#include "sim/kernel_model.hpp"
#include "sim/strategy_choice.hpp"

namespace leanattn::app {

// Which kind of step a plan will run as (cuda/decode.hpp): steps of run() read the lengths on the device (a prologue
// kernel derives the plan's work from them); host-lengths steps get every CTA's segments from the host in the launch.
// They cost differently (the prologue, the walk), so auto weighs a plan with the kernel model of its kind of step.
enum class StepLengths { device, host };

// The kernel model `device` names for that kind of step (its "kernel_host_lengths" for host-lengths steps where it
// names one, else its "kernel"), or the paper's kernel on it when it names none.
sim::KernelModel kernel_for_device(const DeviceSpec& device, StepLengths lengths = StepLengths::device);

struct AutoChoice {
    std::string device;  // the device (file) the plans were weighed on
    sim::KernelModel kernel;
    sim::StrategyChoice choice;
};
// `limits`: what the weighing may allocate and do, checked first (auto_choice_cost; InputError naming the problem's
// size). `keep_device_ctas`: weigh the plans with the device's CTAs per SM (the plan will be made on that device, e.g.
// a live GPU's occupancy or --ctas-per-sm), not the kernel model's. `planned`: the lengths its steps will run at
// (sim::PlannedLengths: the problem's, or any up to them for a cache's capacity).
AutoChoice choose_auto(const Problem& problem, const DeviceSpec& device, std::int64_t bytes_per_element, const PlanOptions& base,
                       const CostLimits& limits, bool keep_device_ctas = false, StepLengths lengths = StepLengths::device,
                       sim::PlannedLengths planned = sim::PlannedLengths::the_problems);

// What choose_auto will allocate and do, for check_cost before it runs (it builds and plays plans of the problem's size,
// so an absurd problem must be refused first): every candidate planned and played one after another (at most
// sim::most_candidates of them), each at most as costly as the worst plan any of them is, the chosen plan kept beside
// the one weighed, and for a capacity each also played at two sets of live lengths (their plans kept while played).
Cost auto_choice_cost(const Problem& problem, const DeviceSpec& device, sim::PlannedLengths planned);

// One line: what auto chose, under which kernel model, and what each candidate was predicted to take (">T": a plan
// that lost, played only until its makespan was shown to be above T).
std::string describe_auto(const AutoChoice& a);

// The same as JSON, the "auto" key of `schedule` and `simulate --format json` and of a library plan's JSON:
// {"device", "kernel", "planned_for": "lengths" | "capacity", "predicted_us", "candidates": [{"strategy", "grid", "splits",
// "tile_rows", "predicted_us", "simulated", "margin"}]}, the candidates in the order weighed; "simulated" false: a plan
// that lost, played only until its predicted_us, a lower bound, showed it could not win; "margin": the share by which
// it had to be faster than the choice so far to replace it (so a plan predicted a little faster may stay unchosen;
// negative: taken unless that much slower). The chosen plan is the document's own strategy and grid.
nlohmann::ordered_json auto_choice_json(const AutoChoice& a);

}  // namespace leanattn::app

// capi.cpp — the C ABI's plans: make one from a problem's shape, size its workspace, run it.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "auto_strategy.hpp"
#include "convert.hpp"
#include "core/cost_estimate.hpp"
#include "core/input_error.hpp"
#include "core/saturating.hpp"
#include "core/schedule_table.hpp"
#include "core/tensor_checks.hpp"
#include "cpu/executor.hpp"
#include "data_catalog.hpp"
#include "gpu_backend.hpp"
#include "plan_registry.hpp"
#include "resource_limits.hpp"
#include "schedule_json.hpp"
#include "status.hpp"

#ifndef LEANATTN_VERSION
#define LEANATTN_VERSION "unknown"
#endif

struct leanattn_plan {
    leanattn::Schedule schedule;
    leanattn::DType dtype;
    leanattn_device_kind device;
    int cuda_device;
    nlohmann::ordered_json auto_choice;  // strategy "auto": what was weighed (app::auto_choice_json), leanattn_plan_json's "auto"
};

namespace leanattn::capi {

namespace {
thread_local std::string last_error_message;
}  // namespace

void set_last_error(const std::string& message) { last_error_message = message; }
const char* last_error() { return last_error_message.c_str(); }

char* c_string(const std::string& text) {
    auto* out = static_cast<char*>(std::malloc(text.size() + 1));
    if (out == nullptr) throw std::bad_alloc();
    std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

namespace {

// A step's host lengths, checked before its tensors (a NULL plan first).
void require_host_lengths(const leanattn_plan* plan, const std::int32_t* host_seqlens) {
    require_live_plan(plan);
    if (host_seqlens == nullptr) throw InputError("host_seqlens", "is NULL (this step's lengths in host memory)");
}

// A CPU plan's tensors are in host memory, so the lengths the header says must equal them are compared there (a GPU
// plan's copies are not read back: that would cost the synchronisation a host-lengths step exists to avoid).
void require_host_lengths_equal(const leanattn_plan* plan, const leanattn_tensors* tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens) {
    if (tensors == nullptr) return;  // refused by the run
    // Refused on every plan, as a GPU's step needs them: code tried on a CPU plan must not fail on a GPU's.
    if (tensors->kv.layout == LEANATTN_KV_RAGGED && host_cu_seqlens == nullptr) {
        throw InputError("host_cu_seqlens", "is NULL: a ragged cache's host-lengths or staged step needs its cu_seqlens in host memory too");
    }
    if (plan->device != LEANATTN_DEVICE_CPU) return;
    const std::int64_t batch = plan->schedule.problem.batch;
    // Named as every other message names the arrays (the Python API's names), with the C field beside.
    const auto compare = [&](const std::int32_t* host, const std::int32_t* given, std::int64_t n, const char* host_name, const char* name) {
        if (host == nullptr || given == nullptr) return;
        for (std::int64_t i = 0; i < n; ++i) {
            if (host[i] != given[i]) {
                throw InputError(host_name, "differs from " + std::string(name) + " at [" + std::to_string(i) + "]: " + std::to_string(host[i]) +
                                                " against " + std::to_string(given[i]) + " (the two must hold the same lengths)");
            }
        }
    };
    compare(host_seqlens, tensors->seqlens, batch, "host_seqlens", "cache_seqlens (tensors.seqlens)");
    if (tensors->kv.layout == LEANATTN_KV_RAGGED) compare(host_cu_seqlens, tensors->kv.cu_seqlens, batch + 1, "host_cu_seqlens", "cu_seqlens (tensors.kv.cu_seqlens)");
}

// One decode step of any kind: `gpu` for a CUDA plan; for a CPU one the tensors checked, the work limit at this step's
// lengths (the plan's capacity may be far more than a step reads; memory is the caller's, and reading the machine's
// would cost more than a small step), then the CPU executor. A GPU step has no work limit: the limit is CPU time.
template <typename Gpu>
void run_step(const leanattn_plan* plan, const leanattn_tensors* tensors, void* workspace, std::size_t workspace_bytes, int threads, Gpu gpu) {
    require_live_plan(plan);
    const DecodeTensors t = to_tensors(tensors, plan->dtype);
    if (plan->device == LEANATTN_DEVICE_CUDA) return gpu(t);
    Problem step = plan->schedule.problem;
    check_decode_tensors(step, t, /*host_readable=*/true);
    for (std::int64_t b = 0; b < step.batch; ++b) step.ctx[static_cast<std::size_t>(b)] = tensors::live_tokens(t.kv, t.seqlens, b);
    check_cost(decode_work(step, 1), CostLimits{saturating::max, app::work_limit(), {}, app::work_limit_source()});
    cpu::run(plan->schedule, t, workspace, workspace_bytes, threads);
}

}  // namespace

}  // namespace leanattn::capi

using namespace leanattn;

extern "C" {

const char* leanattn_last_error(void) { return capi::last_error(); }
const char* leanattn_version(void) { return LEANATTN_VERSION; }
int leanattn_has_cuda(void) { return capi::gpu::built() ? 1 : 0; }

leanattn_status leanattn_plan_create(const leanattn_problem* problem, leanattn_dtype dtype, leanattn_device_kind device,
                                     const leanattn_plan_options* options, leanattn_plan** plan) {
    return capi::guarded([&] {
        if (plan == nullptr) throw InputError("plan", "is NULL (pass the address of a leanattn_plan*)");
        *plan = nullptr;
        // The limits once: each look reads the machine's free memory (/proc, the cgroup), ~15 us.
        const CostLimits limits = app::resource_limits();
        Problem p = capi::to_problem(problem, limits);
        const DType type = capi::to_dtype(dtype);
        PlanOptions plan_options = capi::to_plan_options(options);
        const char* named = options != nullptr ? options->device : nullptr;
        const int gpu = options != nullptr ? options->cuda_device : 0;
        // The device file a plan's costs and auto's kernel model come from: the named one, else for a CUDA plan the one
        // that describes this GPU (its "cuda_names"), else h100-sxm (the GPU the models were fitted on), as the CLI's
        // `cuda` commands do. A CUDA plan takes its timing keys from it, not the built-in defaults, so that it is the plan
        // `cuda bench` timed and auto weighed (with the defaults Llama-3.1-405B B=8 4k q_len 4 went on 132 CTAs instead
        // of one whole output on each of 256: 108 us against 71). On an H200, auto weighed with h200's file rather than
        // h100-sxm's picked a plan within 3% of the best timed on 94 of the held-out shapes instead of 89 (README).
        const bool reads_file = named != nullptr || device == LEANATTN_DEVICE_CUDA || capi::wants_auto(options);  // a CPU plan needs none
        const std::string file = named != nullptr ? std::string(named) : device == LEANATTN_DEVICE_CUDA ? app::default_device_for_gpu(capi::gpu::device_name(gpu)) : "h100-sxm";
        const DeviceSpec described = reads_file ? app::load_device(file) : DeviceSpec{};
        DeviceSpec spec;
        switch (device) {
            case LEANATTN_DEVICE_CPU: spec = named != nullptr ? described : DeviceSpec{}; break;
            case LEANATTN_DEVICE_CUDA:
                spec = capi::gpu::live_device(gpu, p, type, described.timing);
                break;
            default: throw InputError("device " + std::to_string(static_cast<int>(device)), "expected LEANATTN_DEVICE_CPU or LEANATTN_DEVICE_CUDA");
        }
        const app::StepLengths lengths = capi::to_step_lengths(options);  // checked whatever the strategy
        nlohmann::ordered_json auto_choice;
        std::optional<Schedule> weighed;  // auto's chosen plan, where it was made on the device this plan is for
        if (capi::wants_auto(options)) {
            // As the CLI's --strategy auto: a split count, grid or snap belongs to one strategy's plan, which auto
            // would otherwise weigh beside the others' default plans (or drop) without a word.
            if (options->splits != 0 || options->grid != 0 || options->snap != 0) {
                throw InputError({{"strategy", "auto"}}, "chooses the strategy and its splits itself: leave splits, grid and snap at 0, or name the strategy they belong to");
            }
            // The plans are weighed on the device the plan is made for: a GPU's own SMs and occupancy; for the CPU, the
            // device file's SMs at its kernel model's CTAs per SM, as the command line's `cpu --strategy auto` plans
            // (the built-in figures' 2 CTAs per SM are no kernel's: weighed there, the plan made on them was not the
            // plan weighed, and the choice took the simulator's full engine, ~2 ms, instead of ~0.3).
            const bool on_gpu = device == LEANATTN_DEVICE_CUDA;
            DeviceSpec model_device = described;
            if (on_gpu) model_device.sms = spec.sms, model_device.ctas_per_sm = spec.ctas_per_sm;
            // The plan serves every step of a cache of this capacity, at live lengths up to it.
            app::AutoChoice chosen = app::choose_auto(p, model_device, dtype_bytes(type), plan_options, limits, /*keep_device_ctas=*/on_gpu, lengths,
                                                      sim::PlannedLengths::up_to_the_problems);
            if (!on_gpu) spec = sim::device_for_kernel(described, chosen.kernel);
            sim::StrategyChoice& choice = chosen.choice;
            auto_choice = app::auto_choice_json(chosen);
            plan_options = choice.options;
            if (choice.tile_rows > 0) {  // a KV head's rows in two tiles: the plan (and on a GPU, the kernel) for those
                p.tile_rows = choice.tile_rows;
                if (device == LEANATTN_DEVICE_CUDA) spec = capi::gpu::live_device(gpu, p, type, described.timing);
            }
            if (choice.plan.device == spec) weighed = std::move(choice.plan);
        }
        // What the plan and (on the CPU) the workspace the caller will allocate for it cost, before either exists.
        Cost cost = plan_cost(p, spec, plan_options);
        if (device == LEANATTN_DEVICE_CPU) cost.add(cpu_workspace_cost(p, plan_size(p, spec, plan_options)));
        check_cost(cost, limits);
        auto made = std::make_unique<leanattn_plan>(leanattn_plan{weighed ? std::move(*weighed) : make_schedule(p, spec, plan_options), type, device, gpu, std::move(auto_choice)});
        capi::register_plan(made.get());
        *plan = made.release();
    });
}

void leanattn_plan_destroy(leanattn_plan* plan) {
    if (capi::unregister_plan(plan)) delete plan;  // a plan destroyed already, or none: nothing to do
}

leanattn_status leanattn_plan_workspace_bytes(const leanattn_plan* plan, size_t* bytes) {
    return capi::guarded([&] {
        capi::require_live_plan(plan);
        if (bytes == nullptr) throw InputError("bytes", "is NULL (where the workspace's size is written)");
        *bytes = plan->device == LEANATTN_DEVICE_CUDA ? capi::gpu::workspace_bytes(plan->cuda_device, plan->schedule) : cpu::workspace_bytes(plan->schedule);
    });
}

leanattn_status leanattn_plan_json(const leanattn_plan* plan, char** json) {
    return capi::guarded([&] {
        capi::require_live_plan(plan);
        if (json == nullptr) throw InputError("json", "is NULL (where the string is returned)");
        *json = capi::c_string(app::schedule_json(plan->schedule, tabulate(plan->schedule), plan->auto_choice));
    });
}

leanattn_status leanattn_run(const leanattn_plan* plan, const leanattn_tensors* tensors, void* workspace, size_t workspace_bytes, void* stream,
                             int threads) {
    return capi::guarded([&] {
        capi::run_step(plan, tensors, workspace, workspace_bytes, threads,
                       [&](const DecodeTensors& t) { capi::gpu::run(plan->cuda_device, plan->schedule, t, workspace, workspace_bytes, stream); });
    });
}

leanattn_status leanattn_run_host_lengths(const leanattn_plan* plan, const leanattn_tensors* tensors, const int32_t* host_seqlens, const int32_t* host_cu_seqlens,
                                     void* workspace, size_t workspace_bytes, void* stream, int threads) {
    return capi::guarded([&] {
        capi::require_host_lengths(plan, host_seqlens);
        capi::require_host_lengths_equal(plan, tensors, host_seqlens, host_cu_seqlens);
        capi::run_step(plan, tensors, workspace, workspace_bytes, threads, [&](const DecodeTensors& t) {
            capi::gpu::run_host_lengths(plan->cuda_device, plan->schedule, t, host_seqlens, host_cu_seqlens, workspace, workspace_bytes, stream);
        });
    });
}

leanattn_status leanattn_stage_step(const leanattn_plan* plan, const leanattn_tensors* tensors, const int32_t* host_seqlens, const int32_t* host_cu_seqlens,
                                    void* workspace, size_t workspace_bytes, void* stream) {
    return capi::guarded([&] {
        capi::require_host_lengths(plan, host_seqlens);
        capi::require_host_lengths_equal(plan, tensors, host_seqlens, host_cu_seqlens);
        const DecodeTensors t = capi::to_tensors(tensors, plan->dtype);
        if (plan->device == LEANATTN_DEVICE_CUDA) {
            capi::gpu::stage_step(plan->cuda_device, plan->schedule, t, host_seqlens, host_cu_seqlens, workspace, workspace_bytes, stream);
        } else {
            cpu::check_step(plan->schedule, t, workspace, workspace_bytes, Outputs::unused);  // staging is a CPU plan's no-op, its checks are not
        }
    });
}

leanattn_status leanattn_run_staged(const leanattn_plan* plan, const leanattn_tensors* tensors, void* workspace, size_t workspace_bytes, void* stream,
                                    int threads) {
    return capi::guarded([&] {
        capi::run_step(plan, tensors, workspace, workspace_bytes, threads,
                       [&](const DecodeTensors& t) { capi::gpu::run_staged(plan->cuda_device, plan->schedule, t, workspace, workspace_bytes, stream); });
    });
}

void leanattn_free(void* p) { std::free(p); }

leanattn_status leanattn_limits(int64_t* max_memory_bytes, int64_t* max_work) {
    return capi::guarded([&] {
        if (max_memory_bytes == nullptr || max_work == nullptr) throw InputError("max_memory_bytes", "and max_work must not be NULL");
        const CostLimits limits = app::resource_limits();
        *max_memory_bytes = limits.max_memory_bytes;
        *max_work = limits.max_work;
    });
}

}  // extern "C"

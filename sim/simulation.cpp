#include "simulation.hpp"


#include "cta_program.hpp"
#include "engine.hpp"
#include "memory_model.hpp"

namespace leanattn::sim {

SimResult simulate(const Schedule& schedule, const SimOptions& options) {
    check_bytes_per_element(options.bytes_per_element);
    const DeviceSpec& device = schedule.device;
    const KernelModel kernel = options.kernel != nullptr ? *options.kernel : paper_kernel(device);
    const MemoryModel memory = kernel_memory_model(kernel, device, schedule.narrow_streams);
    SmTimeline timeline(device.sms, options.record_timeline);

    SimResult r;
    r.strategy = schedule.strategy;
    r.sms = device.sms;
    r.grid = schedule.grid;
    r.launches = schedule.launches;
    r.splits = schedule.splits;
    r.waves = (schedule.grid + device.resident_ctas() - 1) / device.resident_ctas();
    r.kv_bytes = static_cast<double>(schedule.problem.kv_bytes(options.bytes_per_element));

    r.main_launch_start_ns = kernel.launch_ns;
    double t = run_launch(main_launch(schedule, kernel, options.bytes_per_element), device.sms, device.ctas_per_sm, memory, timeline, kernel.launch_ns,
                          options.record_timeline ? &r.ctas : nullptr, options.record_timeline ? &r.streams : nullptr);
    if (schedule.launches > 1) {
        r.reduce_launch_gap_ns = kernel.reduce_launch_ns;
        t = run_launch(reduce_launch(schedule, kernel), device.sms, device.ctas_per_sm, memory, timeline, t + kernel.reduce_launch_ns);
    }
    timeline.close(t);

    r.makespan_ns = t;
    r.busy_sm_ns = timeline.total_ns(SmState::busy);
    r.reduce_sm_ns = timeline.total_ns(SmState::reduce);
    r.waiting_sm_ns = timeline.total_ns(SmState::waiting);
    r.idle_sm_ns = timeline.total_ns(SmState::idle);
    if (options.record_timeline) r.timeline = timeline.intervals();
    return r;
}

std::vector<SimResult> simulate_strategies(const Problem& problem, const DeviceSpec& device, const PlanOptions& plan,
                                           const std::vector<Strategy>& strategies, const SimOptions& options) {
    const DeviceSpec planned = options.kernel != nullptr ? device_for_kernel(device, *options.kernel) : device;
    std::vector<SimResult> results;
    for (Strategy strategy : strategies) {
        PlanOptions one = plan;
        one.strategy = strategy;
        results.push_back(simulate(make_schedule(problem, planned, one), options));
    }
    return results;
}

}  // namespace leanattn::sim

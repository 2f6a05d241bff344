// sim_fixtures.hpp — small devices and problems whose simulated times can be worked out by hand.
#pragma once

#include "core/device_spec.hpp"
#include "core/problem.hpp"
#include "core/schedule.hpp"
#include "sim/simulation.hpp"

namespace leanattn::testing {

// A device whose HBM is so wide that every SM streams at its own cap, bytes_in_flight / latency =
// 32768 B / 500 ns = 65.536 B/ns, however many SMs stream: one 256-token, d = 64, fp16 LeanTile
// (256 · 64 · 2 · 2 = 65,536 bytes) then takes exactly 1,000 ns. Fixed costs are round numbers.
inline DeviceSpec hand_device(std::int64_t sms, std::int64_t ctas_per_sm = 1) {
    DeviceSpec d;
    d.name = "hand";
    d.sms = sms;
    d.ctas_per_sm = ctas_per_sm;
    DeviceTiming& t = d.timing;
    t.hbm_bandwidth_gb_per_s = 1e12;  // the queueing term W / B is below 1e-6 ns
    t.hbm_partitions = 1;
    t.mem_latency_ns = 500.0;
    t.bytes_in_flight_per_sm = 32768.0;
    t.latency_knee_exponent = 1.0;
    t.tile_compute_ns = 60.0;
    t.cta_startup_ns = 800.0;
    t.partial_store_ns = 500.0;
    t.output_store_ns = 200.0;
    t.flag_wait_ns = 250.0;
    t.reduce_per_partial_ns = 350.0;
    t.launch_overhead_ns = 2500.0;
    return d;
}

// Decode with head-dim 64 and the paper's 256-token LeanTile: `heads` outputs of one request.
inline Problem hand_problem(std::int64_t heads, std::int64_t ctx, std::int64_t batch = 1) {
    Problem p;
    p.batch = batch;
    p.q_heads = p.kv_heads = heads;
    p.head_dim = 64;
    p.tile = 256;
    p.ctx.assign(static_cast<std::size_t>(batch), ctx);
    return p;
}

// stream-k plans use `rule`: the hand-worked tests pin the paper's, whose plan they work out.
inline sim::SimResult run(const Problem& p, const DeviceSpec& d, Strategy strategy, std::int64_t splits = 0, bool timeline = false,
                          StreamKRule rule = StreamKRule::paper) {
    PlanOptions options;
    options.strategy = strategy;
    options.splits = splits;
    options.stream_k_rule = rule;
    sim::SimOptions sim_options;
    sim_options.record_timeline = timeline;
    return sim::simulate(make_schedule(p, d, options), sim_options);
}

}  // namespace leanattn::testing

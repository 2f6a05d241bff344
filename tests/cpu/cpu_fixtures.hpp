// cpu_fixtures.hpp — small problems run through the executor and checked, shared by the CPU tests.
#pragma once

#include <catch2/catch.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "core/reference.hpp"
#include "core/schedule.hpp"
#include "cpu/executor.hpp"
#include "cpu/host_tensors.hpp"

namespace leanattn::testing {

inline DeviceSpec test_device(std::int64_t sms, std::int64_t ctas_per_sm) {
    DeviceSpec d;
    d.name = "test";
    d.sms = sms;
    d.ctas_per_sm = ctas_per_sm;
    return d;
}

inline Schedule plan_for(const Problem& p, const DeviceSpec& d, Strategy strategy, std::int64_t splits = 0) {
    PlanOptions o;
    o.strategy = strategy;
    o.splits = strategy == Strategy::fixed_split ? splits : 0;
    return make_schedule(p, d, o);
}

// One decode step of `schedule` on `tensors`, with a workspace of its own.
inline void execute(const Schedule& schedule, cpu::HostTensors& tensors, int threads) {
    std::vector<std::byte> workspace(cpu::workspace_bytes(schedule));
    cpu::run(schedule, tensors.view(), workspace.data(), workspace.size(), threads);
}

inline ReferenceOutput reference_of(const cpu::HostTensors& tensors) { return reference_attention(tensors.problem(), tensors.view()); }

// Executes `schedule` on fresh, poisoned outputs and returns the errors against the float64 reference.
inline Errors run_and_check(const Schedule& schedule, cpu::HostTensors& tensors, const ReferenceOutput& ref, int threads) {
    tensors.poison_outputs();
    execute(schedule, tensors, threads);
    return compare_to_reference(tensors.problem(), tensors.view(), ref);
}

}  // namespace leanattn::testing

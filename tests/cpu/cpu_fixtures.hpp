// cpu_fixtures.hpp — small problems run through the executor and checked, shared by the CPU tests.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "core/schedule.hpp"
#include "cpu/executor.hpp"
#include "cpu/reference.hpp"

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

// Executes `schedule` on fresh, poisoned outputs and returns the errors against the float64 reference.
inline cpu::Errors run_and_check(const Schedule& schedule, cpu::DecodeTensors& tensors, const cpu::ReferenceOutput& ref, int threads) {
    tensors.poison_outputs();
    cpu::execute_plan(schedule, tensors, threads);
    return cpu::compare_to_reference(tensors, ref);
}

}  // namespace leanattn::testing

// sim/makespan.hpp: the makespan alone, played with one clock per partition and work added up between
// streams, is simulate()'s to rounding, on every strategy, on ragged and multi-wave plans, with waits on
// peers, under fitted and paper kernels, on one and on several HBM partitions.
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/data_catalog.hpp"
#include "core/input_error.hpp"
#include "decode_shape.hpp"
#include "random_problems.hpp"
#include "sim/makespan.hpp"
#include "sim/simulation.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

double full_simulation_ns(const Schedule& plan, const sim::KernelModel& kernel, std::int64_t bytes) {
    sim::SimOptions so;
    so.kernel = &kernel;
    so.bytes_per_element = bytes;
    return sim::simulate(plan, so).makespan_ns;
}

}  // namespace

TEST_CASE("MakespanModel equals simulate()'s makespan on random plans of every strategy") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const DeviceSpec a100x8 = app::load_device("a100-80gb-x8");  // 8 HBM partitions
    const sim::KernelModel fitted = app::load_kernel("leanattn-h100", h100);
    sim::KernelModel uneven = fitted;  // SMs of unequal latency and a soft knee: every rate differs
    uneven.latency_knee_exponent = 2.0;
    uneven.sm_latency_spread = 0.5;
    auto rng = seeded_rng(811);
    int waited = 0, multi_wave = 0;
    for (int i = 0; i < 60; ++i) {
        const Problem p = random_problem(rng, 1 << 16);
        const std::int64_t bytes = i % 4 == 0 ? 4 : 2;
        for (const DeviceSpec& gpu : {h100, a100x8}) {
            for (const sim::KernelModel& k : {fitted, uneven, sim::paper_kernel(sim::device_for_kernel(gpu, fitted))}) {
                const DeviceSpec planned = sim::device_for_kernel(gpu, k);
                const sim::MakespanModel model(k, planned);
                for (const Strategy s : {Strategy::no_split, Strategy::fixed_split, Strategy::stream_k}) {
                    PlanOptions o;
                    o.strategy = s;
                    const Schedule plan = make_schedule(p, planned, o);
                    CAPTURE(describe(p, planned), gpu.name, k.name, strategy_name(s), plan.grid, bytes);
                    const double full = full_simulation_ns(plan, k, bytes);
                    CHECK(model.makespan_ns(plan, bytes) == Approx(full).epsilon(1e-9));
                    CHECK(sim::simulated_makespan_ns(plan, k, bytes) == Approx(full).epsilon(1e-9));
                    multi_wave += plan.grid > planned.resident_ctas() ? 1 : 0;
                    waited += s == Strategy::stream_k && !plan.one_output_per_cta ? 1 : 0;
                }
            }
        }
    }
    CHECK(multi_wave > 10);  // the draw reached plans of several waves …
    CHECK(waited > 10);      // … and stream-k plans whose hosts wait on peers
}

TEST_CASE("MakespanModel refuses an element size the kernels do not have, as simulate() does") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel k = app::load_kernel("leanattn-h100", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, k);
    Problem p;
    p.ctx = {4096};
    const Schedule plan = make_schedule(p, planned, PlanOptions{});
    CHECK_THROWS_AS(sim::MakespanModel(k, planned).makespan_ns(plan, 3), InputError);
}

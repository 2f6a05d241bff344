// sim/makespan.hpp: the makespan alone, played with one clock per partition and work added up between
// streams, is simulate()'s to rounding, on every strategy, on ragged and multi-wave plans, with waits on
// peers, under fitted and paper kernels, on one and on several HBM partitions; the shared programs it plays are
// main_launch's; makespan_below's bounds hold.
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

// Calls check(i, plan, kernel, model) on the plan of every strategy of 60 random problems (draw i), on one HBM
// partition and on eight, under the fitted kernel, one of unequal SMs with a soft knee (every rate differs) whose
// split outputs' CTAs share their merges where they can (several CTAs wait on one flag), and the paper's.
template <typename Check>
void for_random_plans(std::uint64_t salt, Check&& check) {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const DeviceSpec a100x8 = app::load_device("a100-80gb-x8");  // 8 HBM partitions
    const sim::KernelModel fitted = app::load_kernel("leanattn-h100", h100);
    sim::KernelModel uneven = fitted;
    uneven.latency_knee_exponent = 2.0;
    uneven.sm_latency_spread = 0.5;
    uneven.merge = sim::MergeOrder::shared;  // several CTAs wait on one flag
    auto rng = seeded_rng(salt);
    for (int i = 0; i < 60; ++i) {
        const Problem p = random_problem(rng, 1 << 16);
        for (const DeviceSpec& gpu : {h100, a100x8}) {
            for (const sim::KernelModel& k : {fitted, uneven, sim::paper_kernel(sim::device_for_kernel(gpu, fitted))}) {
                const DeviceSpec planned = sim::device_for_kernel(gpu, k);
                const sim::MakespanModel model(k, planned);
                for (const Strategy s : {Strategy::no_split, Strategy::fixed_split, Strategy::stream_k}) {
                    PlanOptions o;
                    o.strategy = s;
                    const Schedule plan = make_schedule(p, planned, o);
                    CAPTURE(describe(p, planned), gpu.name, k.name, strategy_name(s), plan.grid);
                    check(i, plan, k, model);
                }
            }
        }
    }
}

}  // namespace

TEST_CASE("MakespanModel equals simulate()'s makespan on random plans of every strategy") {
    int waited = 0, multi_wave = 0;
    for_random_plans(811, [&](int i, const Schedule& plan, const sim::KernelModel& k, const sim::MakespanModel& model) {
        const std::int64_t bytes = i % 4 == 0 ? 4 : 2;
        CAPTURE(bytes);
        const double full = full_simulation_ns(plan, k, bytes);
        CHECK(model.makespan_ns(plan, bytes) == Approx(full).epsilon(1e-9));
        CHECK(sim::simulated_makespan_ns(plan, k, bytes) == Approx(full).epsilon(1e-9));
        multi_wave += plan.grid > plan.device.resident_ctas() ? 1 : 0;
        waited += plan.strategy == Strategy::stream_k && !plan.one_output_per_cta ? 1 : 0;
    });
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

TEST_CASE("SharedLaunch: every CTA runs the program main_launch and reduce_launch list for it") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel fitted = app::load_kernel("leanattn-h100", h100);
    const DeviceSpec planned = sim::device_for_kernel(h100, fitted);
    const auto same_phase = [](const sim::Phase& a, const sim::Phase& b) {  // the pictures' output aside
        return a.kind == b.kind && a.reduction == b.reduction && a.signals == b.signals && a.amount == b.amount && a.min_ns == b.min_ns &&
               a.loss == b.loss && a.peer == b.peer;
    };
    auto rng = seeded_rng(812);
    sim::SharedLaunch shared;
    std::int64_t fewer = 0;  // launches that hold fewer programs than CTAs
    for (int i = 0; i < 150; ++i) {
        const Problem p = random_problem(rng, 1 << 16);
        for (const sim::KernelModel& k : {fitted, sim::paper_kernel(planned)}) {
            for (const Strategy s : {Strategy::no_split, Strategy::fixed_split, Strategy::stream_k}) {
                PlanOptions o;
                o.strategy = s;
                const Schedule plan = make_schedule(p, planned, o);
                for (const bool reduce : {false, true}) {
                    CAPTURE(describe(p, planned), k.name, strategy_name(s), reduce);
                    const sim::LaunchProgram full = reduce ? sim::reduce_launch(plan, k) : sim::main_launch(plan, k, 2);
                    if (reduce) sim::shared_reduce_launch(plan, k, shared);
                    else sim::shared_main_launch(plan, k, 2, shared);
                    REQUIRE(shared.grid() == full.grid());
                    fewer += shared.programs.grid() < full.grid() ? 1 : 0;
                    for (std::int64_t g = 0; g < full.grid(); ++g) {
                        const std::int64_t program = shared.program_of[static_cast<std::size_t>(g)];
                        const std::int64_t b = shared.programs.first[static_cast<std::size_t>(program)], e = shared.programs.first[static_cast<std::size_t>(program) + 1];
                        REQUIRE(e - b == full.first[static_cast<std::size_t>(g) + 1] - full.first[static_cast<std::size_t>(g)]);
                        for (std::int64_t j = 0; j < e - b; ++j) {
                            REQUIRE(same_phase(shared.programs.phases[static_cast<std::size_t>(b + j)], full.phases[static_cast<std::size_t>(full.first[static_cast<std::size_t>(g)] + j)]));
                        }
                    }
                }
            }
        }
    }
    CHECK(fewer > 200);
}

TEST_CASE("makespan_below: the makespan where it stays below the limit, else a lower bound of it that reaches the limit") {
    int bounded = 0, before_play = 0, played = 0;
    for_random_plans(813, [&](int, const Schedule& plan, const sim::KernelModel&, const sim::MakespanModel& model) {
        const double full = model.makespan_ns(plan, 2);
        for (const double share : {0.5, 0.9, 0.99, 1.0, 1.01, 1.5}) {
            CAPTURE(share);
            const double limit = full * share;
            const sim::BoundedMakespan t = model.makespan_below(plan, 2, limit);
            if (t.simulated) {
                CHECK(t.ns == full);  // played to its end: the makespan itself
                played += share <= 1.0 ? 1 : 0;
            } else {
                CHECK(t.ns >= limit);  // gave up only once the bound reached the limit …
                CHECK(t.ns <= full);   // … and the bound holds
                ++bounded;
            }
            if (share > 1.0) CHECK(t.simulated);  // a bound never exceeds the makespan
        }
        before_play += model.makespan_below(plan, 2, full * 0.5).simulated ? 0 : 1;
    });
    CHECK(bounded > 300);      // limits below the makespan are mostly found out …
    CHECK(before_play > 100);  // … half of it often before a single event
    CHECK(played > 0);
}

TEST_CASE("lower_bound_ns: below the makespan of every plan of that many CTAs, and above the launch where bytes dominate") {
    int above_launch = 0, plans = 0;
    for_random_plans(977, [&](int, const Schedule& plan, const sim::KernelModel& kernel, const sim::MakespanModel& model) {
        const double bytes = static_cast<double>(plan.problem.kv_bytes(2));
        const double least = model.lower_bound_ns(bytes, plan.grid);
        CAPTURE(plan.grid, bytes);
        CHECK(least <= model.makespan_ns(plan, 2));  // sound: what choose_strategy may rule a plan out with, unmade
        CHECK(least >= kernel.launch_ns);
        above_launch += least > kernel.launch_ns + kernel.cta_setup_ns ? 1 : 0;
        ++plans;
    });
    CHECK(above_launch > plans / 2);  // not a vacuous bound
}


TEST_CASE("a plan the kernel reads with half its warps plays on its law: no idle SMs' loss, fewer bytes in flight, in both players") {
    const DeviceSpec h100 = app::load_device("h100-sxm");
    const sim::KernelModel fitted = app::load_kernel("leanattn-h100", h100);
    REQUIRE(fitted.idle_sms_bandwidth_loss > 0.0);
    REQUIRE(fitted.narrow_in_flight_fraction < 1.0);
    sim::KernelModel no_loss = fitted;  // the narrow law, as a wide one
    no_loss.idle_sms_bandwidth_loss = 0.0;
    no_loss.bytes_in_flight_per_sm *= fitted.narrow_in_flight_fraction;
    const DeviceSpec planned = sim::device_for_kernel(h100, fitted);
    const sim::MakespanModel model(fitted, planned);
    // Llama-3-8B B=8 at 4k: no-split on 64 of the 132 SMs, read with half the warps.
    const Schedule narrow = make_schedule(decode_shape(8, 32, 8, 128, 4096), planned, {.strategy = Strategy::no_split});
    REQUIRE(narrow.narrow_streams);
    Schedule wide = narrow;
    wide.narrow_streams = false;
    const double narrow_ns = model.makespan_ns(narrow, 2);
    // (Not to the last bit: a segment's pipeline fill still counts the kernel's whole window of bytes in flight.)
    CHECK(narrow_ns == Approx(sim::MakespanModel(no_loss, planned).makespan_ns(wide, 2)).epsilon(1e-3));
    CHECK(narrow_ns == Approx(full_simulation_ns(narrow, fitted, 2)).epsilon(1e-9));
    CHECK(model.makespan_ns(wide, 2) == Approx(full_simulation_ns(wide, fitted, 2)).epsilon(1e-9));
    CHECK(narrow_ns < 0.97 * model.makespan_ns(wide, 2));  // 64 of 132 SMs: the loss is worth several percent
    CHECK(model.lower_bound_ns(static_cast<double>(narrow.problem.kv_bytes(2)), narrow.grid) <= narrow_ns);  // still a bound
}

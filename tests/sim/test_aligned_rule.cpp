// The aligned rule's plans played out: on the H100 shapes where the paper's split lost to one CTA per output
// (its outputs nearly fill the CTAs), stream-k under the aligned rule simulates no slower than no-split and
// fixed-split; on Figure 1's problem it puts two CTAs on each head, sooner than the paper's plan and than one CTA a head.
#include <catch2/catch.hpp>

#include "decode_shape.hpp"
#include "random_problems.hpp"
#include "sim_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

TEST_CASE("where outputs nearly fill the H100's CTAs, aligned stream-k simulates no slower than no-split and fixed-split") {
    const Problem shapes[] = {decode_shape(32, 32, 8, 128, 2048), decode_shape(16, 64, 8, 128, 4096), decode_shape(4, 32, 32, 64, 1024)};
    for (std::int64_t per_sm : {1, 2}) {
        DeviceSpec d;  // h100-sxm's timing
        d.ctas_per_sm = per_sm;
        for (const Problem& p : shapes) {
            CAPTURE(describe(p, d));
            const double aligned = run(p, d, Strategy::stream_k, 0, false, StreamKRule::aligned).makespan_ns;
            CHECK(aligned <= run(p, d, Strategy::no_split).makespan_ns * (1 + 1e-9));
            CHECK(aligned <= run(p, d, Strategy::fixed_split).makespan_ns * (1 + 1e-9));
        }
    }
}

TEST_CASE("Figure 1's problem under the default rule on paper-5sm: two CTAs a head, sooner than the paper's plan and than one CTA a head") {
    DeviceSpec d = hand_device(5);  // the timing of data/devices/paper-5sm.json
    DeviceTiming& t = d.timing;
    t.hbm_bandwidth_gb_per_s = 2039.0, t.mem_latency_ns = 350.0, t.bytes_in_flight_per_sm = 65536.0, t.tile_compute_ns = 60.0;
    t.cta_startup_ns = 800.0, t.partial_store_ns = 500.0, t.output_store_ns = 200.0, t.flag_wait_ns = 250.0, t.reduce_per_partial_ns = 350.0;
    const Problem p = hand_problem(2, 1280);
    const sim::SimResult aligned = run(p, d, Strategy::stream_k, 0, true, StreamKRule::aligned);
    const sim::SimResult paper = run(p, d, Strategy::stream_k, 0, true, StreamKRule::paper);
    const sim::SimResult one_a_head = run(p, d, Strategy::no_split);  // one CTA per head: the rule's plan until it weighed k CTAs an output
    CHECK(aligned.grid == 4);
    CHECK(aligned.reduction_share() > 0.0);  // each host merges its one peer's partial
    CHECK(aligned.makespan_ns < paper.makespan_ns);
    CHECK(aligned.makespan_ns < one_a_head.makespan_ns);
}

// run()'s workspace layout (cuda/workspace.hpp), on the CPU: sections in order, aligned, apart, and sized
// for what each strategy stores.
#include <catch2/catch.hpp>

#include "../core/random_problems.hpp"
#include "cuda/decode.hpp"
#include "cuda/step_table.hpp"
#include "cuda/workspace.hpp"

using namespace leanattn;
using namespace leanattn::testing;

TEST_CASE("a partial holds rows x head_dim accumulators, then a maximum and a sum per row, padded to 16 bytes") {
    Problem p;
    p.q_heads = 32, p.kv_heads = 8, p.head_dim = 128, p.q_len = 1;
    CHECK(cuda::partial_floats(p) == 4 * 128 + 2 * 4);
    p.q_len = 3;
    CHECK(cuda::partial_floats(p) == 12 * 128 + 2 * 12);
    // Falcon-7B: 71 query heads on one KV head in 5 tiles of 15 rows; 15 · 64 + 2 · 15 = 990 floats, padded to 992
    // so that every slot starts on 16 bytes (the kernels move 4 accumulators at once).
    p.q_heads = 71, p.kv_heads = 1, p.head_dim = 64, p.q_len = 1;
    CHECK(cuda::partial_floats(p) == 992);
    for (std::int64_t rows = 1; rows <= 128; ++rows) {
        for (std::int64_t d : {64, 96, 128, 256}) {
            const std::int64_t slot = cuda::partial_slot_floats(rows, d);
            CHECK(slot % 4 == 0);
            CHECK(slot >= rows * d + 2 * rows);
            CHECK(slot < rows * d + 2 * rows + 4);
        }
    }
}

TEST_CASE("the workspace's sections come in order, 256-byte aligned, apart, each big enough, for every plan") {
    auto rng = seeded_rng(31);
    for (int i = 0; i < 2000; ++i) {
        const Problem p = random_problem(rng, 50000);
        const DeviceSpec d = random_device(rng);
        for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
            const Schedule s = make_schedule(p, d, PlanOptions{.strategy = strategy});
            const cuda::WorkspaceLayout w = cuda::workspace_layout(s);
            CAPTURE(i, describe(p, d), strategy_name(strategy));
            const std::size_t batch = static_cast<std::size_t>(p.batch);
            const bool several = strategy == Strategy::stream_k || (strategy == Strategy::fixed_split && s.splits > 1);
            REQUIRE(w.flag_count == (strategy == Strategy::stream_k ? s.grid : 0));
            REQUIRE(w.partial_slots == (several ? s.grid : 0));
            REQUIRE(w.partial_floats == cuda::partial_floats(p));
            REQUIRE(w.split_count_entries == (strategy == Strategy::fixed_split && s.splits > 1 ? p.outputs() : 0));
            const std::size_t starts[] = {w.live, w.request_tiles, w.request_offset, w.flags, w.split_counts, w.partials, w.step_table, w.bytes};
            const std::size_t sizes[] = {sizeof(cuda::LivePlan), batch * 8, (batch + 1) * 8, static_cast<std::size_t>(w.flag_count) * 4,
                                         static_cast<std::size_t>(w.split_count_entries) * 4, static_cast<std::size_t>(w.partial_slots * w.partial_floats) * 4,
                                         sizeof(cuda::StepTable)};
            REQUIRE(w.live == 0);
            for (int k = 0; k < 7; ++k) {
                REQUIRE(starts[k] % cuda::workspace_alignment == 0);
                REQUIRE(starts[k] + sizes[k] <= starts[k + 1]);  // each ends before the next begins
            }
            REQUIRE(cuda::workspace_bytes(s) == w.bytes);
        }
    }
}

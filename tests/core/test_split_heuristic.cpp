// FlashAttention-2's split heuristic on cases worked by hand (the arithmetic is in each comment).
#include <catch2/catch.hpp>

#include <array>

#include "core/schedule.hpp"
#include "core/split_heuristic.hpp"

using namespace leanattn;

TEST_CASE("enough row-blocks to fill 80% of the slots: no split") {
    // B=6, H=48, d=64 on an H100: bnm = 6·48·⌈1/64⌉ = 288 ≥ 0.8 · 264 = 211.2.
    CHECK(fa2_num_splits(288, 264, 256) == 1);
    // Just under the line: 211 < 211.2, so splitting is considered.
    CHECK(fa2_num_splits(211, 264, 256) > 1);
}

TEST_CASE("B=1, H=32, d=128, ctx 4096 on an H100 takes 7 splits") {
    // bnm = 32, slots = 264, n = 32 blocks of 128: s ≤ min(128, 264, 32) = 32.
    // Eligible s (⌈32/s⌉ changes): 1,2,3,4,5,6,7,8,11,16,32. eff(8) = (256/264)/1 = 0.970 is the maximum
    // (16 and 32 tie it). Threshold 0.85 · 0.970 = 0.824; eff(6) = 0.727, eff(7) = 224/264 = 0.848 → 7.
    CHECK(fa2_num_splits(32, 264, 32) == 7);
}

TEST_CASE("the paper's A100 case B=4, H=32, d=64, ctx 256k takes 3 splits") {
    // bnm = 128 < 0.8 · 216 = 172.8. eff(1) = 128/216 = 0.593, eff(2) = 1.185/2 = 0.593,
    // eff(3) = 1.778/2 = 0.889 ≥ 0.85 · 1.0 (eff(27) = 16/16 = 1 is the maximum) → 3.
    CHECK(fa2_num_splits(128, 216, 1024) == 3);
}

TEST_CASE("a split count whose chunk equals the previous one's is skipped, also when finding the best efficiency") {
    // bnm = 2, slots = 8, n = 5: chunks ⌈5/s⌉ = 5,3,2,2,1, so s = 4 is skipped. eff = 0.25, 0.5, 0.75, –, 0.625.
    // Best eligible 0.75, threshold 0.6375 → 3. (Counting s = 4, eff 1.0, would have made it 4.)
    CHECK(fa2_num_splits(2, 8, 5) == 3);
}

TEST_CASE("no more splits than LeanTiles or slots") {
    CHECK(fa2_num_splits(1, 264, 1) == 1);
    CHECK(fa2_num_splits(1, 264, 3) <= 3);
    CHECK(fa2_num_splits(1, 4, 1000) <= 4);
}

TEST_CASE("the fixed-split planner feeds the heuristic the GQA row-blocks and the longest request") {
    Problem p;
    p.batch = 2;
    p.q_heads = 32;
    p.kv_heads = 8;  // group 4: ⌈1·4/64⌉ = 1 row-block per output
    p.head_dim = 128;
    p.tile = 128;
    p.ctx = {4096, 128};  // n = 32 from the longest request
    DeviceSpec d;  // 132 SMs
    PlanOptions options;
    options.strategy = Strategy::fixed_split;
    const Schedule s = make_schedule(p, d, options);
    CHECK(s.splits == fa2_num_splits(16, 264, 32));
    CHECK(s.chunk == (32 + s.splits - 1) / s.splits);
    CHECK(s.grid == 16 * s.splits);
    CHECK(s.launches == (s.splits > 1 ? 2 : 1));
}

TEST_CASE("splits asked for are at most the longest output's LeanTiles, and fewer are kept as asked (as FlashAttention-2 keeps them)") {
    Problem p;
    p.q_heads = p.kv_heads = 2;
    p.head_dim = 64;
    p.tile = 64;
    p.ctx = {640, 100};  // 10 LeanTiles in the longest request
    PlanOptions options;
    options.strategy = Strategy::fixed_split;
    p.batch = 2;
    // splits asked → splits planned, chunk: 8 splits of ⌈10/8⌉ = 2 LeanTiles (the last 3 empty); 500 are 10 of one.
    for (const auto& [asked, splits, chunk] : {std::array<std::int64_t, 3>{1, 1, 10}, {3, 3, 4}, {4, 4, 3}, {5, 5, 2}, {8, 8, 2}, {9, 9, 2},
                                               {10, 10, 1}, {500, 10, 1}, {std::int64_t{1} << 40, 10, 1}}) {
        CAPTURE(asked);
        options.splits = asked;
        const Schedule s = make_schedule(p, DeviceSpec{}, options);
        CHECK(s.splits == splits);
        CHECK(s.chunk == chunk);
        CHECK(s.grid == 4 * splits);
    }
}

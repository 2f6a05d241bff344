// narrow_streams_pay: which plans leanattn's GPU kernel reads with half its warps. Only plans of one whole output per
// CTA, at head dim 128 in one tile of 2-16 rows per KV head, on 40-75% of the SMs by their even share of K and V; the
// planner marks every plan it makes by the rule.
#include <catch2/catch.hpp>

#include "core/schedule.hpp"
#include "decode_shape.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

DeviceSpec h100() {
    DeviceSpec d;
    d.sms = 132;
    d.ctas_per_sm = 1;  // the kernel's
    return d;
}

Schedule no_split(const Problem& p) { return make_schedule(p, h100(), {.strategy = Strategy::no_split}); }

}  // namespace

TEST_CASE("no-split of one-warp tiles reads with half the warps on 40-75% of the SMs, by the outputs' even share") {
    // Llama-3-8B (32/8, d 128, 4 rows a tile) at 4k: B outputs = 8 B CTAs of 132 SMs.
    for (const std::int64_t batch : {7, 8, 10, 12}) {  // 56-96 CTAs: 42-73% of the SMs
        const Schedule s = no_split(decode_shape(batch, 32, 8, 128, 4096));
        CHECK(s.narrow_streams);
        CHECK(narrow_streams_pay(s));
    }
    CHECK_FALSE(no_split(decode_shape(6, 32, 8, 128, 4096)).narrow_streams);   // 48 CTAs: 36%, each CTA's own rate bounds it
    CHECK_FALSE(no_split(decode_shape(13, 32, 8, 128, 4096)).narrow_streams);  // 104 CTAs: 79%
    // The share counts the longest output: 8 requests of 8 KV heads whose longest holds twice the mean spread over 32.
    Problem ragged = decode_shape(8, 32, 8, 128, 4096);
    ragged.ctx = {4096, 1000, 7000, 3000, 4096, 500, 6000, 2500};
    CHECK_FALSE(no_split(ragged).narrow_streams);
    ragged.ctx = {4096, 4000, 3900, 4096, 4096, 3800, 4096, 4000};  // nearly even: 63 outputs' worth
    CHECK(no_split(ragged).narrow_streams);
}

TEST_CASE("narrow streams need head dim 128 in one tile of 2-16 rows per KV head") {
    CHECK_FALSE(no_split(decode_shape(2, 32, 32, 128, 4096)).narrow_streams);  // 64 CTAs of one row: the CUDA-core kernel
    CHECK_FALSE(no_split(decode_shape(8, 32, 8, 64, 4096)).narrow_streams);    // head dim 64: too few bytes in flight
    CHECK_FALSE(no_split(decode_shape(8, 16, 8, 256, 4096)).narrow_streams);   // head dim 256: two warps a tile
    Problem speculative = decode_shape(8, 28, 4, 128, 4096);  // Qwen2.5-7B at q_len 4: 28 rows, two blocks of 14 a KV head
    speculative.q_len = 4;
    CHECK(no_split(speculative).grid == 64);
    CHECK_FALSE(no_split(speculative).narrow_streams);  // the second block's K and V mostly from L2
    Problem wide = decode_shape(64, 32, 1, 128, 4096);
    wide.tile_rows = 32;  // one tile of 32 rows: a team of two warps
    CHECK_FALSE(no_split(wide).narrow_streams);
    speculative.batch = 16, speculative.q_heads = 16, speculative.ctx.assign(16, 4096);  // 16 rows a KV head: one tile
    CHECK(no_split(speculative).narrow_streams);
}

TEST_CASE("narrow streams need one whole output per CTA, whatever the strategy that plans it") {
    const Problem p = decode_shape(8, 32, 8, 128, 4096);  // 64 outputs
    CHECK(make_schedule(p, h100(), {.strategy = Strategy::fixed_split, .splits = 1}).narrow_streams);
    CHECK_FALSE(make_schedule(p, h100(), {.strategy = Strategy::fixed_split, .splits = 2}).narrow_streams);
    const Schedule aligned = make_schedule(p, h100(), {.strategy = Strategy::stream_k});
    CHECK_FALSE(aligned.one_output_per_cta);  // two CTAs on every output
    CHECK_FALSE(aligned.narrow_streams);
    const Schedule whole = make_schedule(p, h100(), {.strategy = Strategy::stream_k, .grid = 64, .snap = std::int64_t{1} << 20});
    REQUIRE(whole.one_output_per_cta);
    CHECK(whole.narrow_streams);
}

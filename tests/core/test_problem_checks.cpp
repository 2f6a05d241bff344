// Bad problems and options are refused with an InputError that names the API's parameter (the command
// line maps it to its flag: tests/app).
#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/schedule.hpp"

using namespace leanattn;

namespace {

Problem good() {
    Problem p;
    p.batch = 2;
    p.q_heads = 8;
    p.kv_heads = 2;
    p.head_dim = 64;
    p.tile = 256;
    p.ctx = {1000, 2000};
    return p;
}

std::string refusal(const Problem& p, PlanOptions options = {}) {
    try {
        make_schedule(p, DeviceSpec{}, options);
    } catch (const InputError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("a well-formed problem is accepted") { CHECK(refusal(good()) == "accepted"); }

TEST_CASE("each malformed problem is refused, naming its parameter") {
    Problem p = good();
    SECTION("zero batch") { p.batch = 0; CHECK_THAT(refusal(p), Catch::Contains("batch 0")); }
    SECTION("negative heads") { p.q_heads = -8; CHECK_THAT(refusal(p), Catch::Contains("q_heads -8")); }
    SECTION("heads not divisible by kv-heads") { p.kv_heads = 3; CHECK_THAT(refusal(p), Catch::Contains("q_heads 8 kv_heads 3")); }
    SECTION("a ctx list whose length is not the batch") { p.ctx = {5}; CHECK_THAT(refusal(p), Catch::Contains("ctx (gives 1 context")); }
    SECTION("ctx 0") { p.ctx = {1000, 0}; CHECK_THAT(refusal(p), Catch::Contains("ctx 0")); }
    SECTION("tile not a multiple of 16") { p.tile = 100; CHECK_THAT(refusal(p), Catch::Contains("tile 100")); }
    SECTION("tile zero") { p.tile = 0; CHECK_THAT(refusal(p), Catch::Contains("tile 0")); }
    SECTION("q-len longer than a request's context") { p.q_len = 1500; CHECK_THAT(refusal(p), Catch::Contains("q_len 1500")); }
    SECTION("sizes that overflow 64 bits") {
        p.ctx = {std::int64_t{1} << 40, std::int64_t{1} << 40};
        p.head_dim = std::int64_t{1} << 22;  // 2^41 tokens × 2 kv-heads × 2^22 = 2^64 elements
        CHECK_THAT(refusal(p), Catch::Contains("overflow"));
    }
    SECTION("output tiles times LeanTiles that overflow 64 bits, though every tensor's elements fit") {
        p.batch = 1, p.ctx = {std::int64_t{1} << 20};
        p.q_heads = std::int64_t{1} << 31, p.kv_heads = 1, p.q_len = std::int64_t{1} << 20, p.head_dim = 1, p.tile = 16;
        CHECK_THAT(refusal(p), Catch::Contains("overflow"));  // 2^47 row blocks × 2^16 LeanTiles
    }
    SECTION("context lengths whose sum overflows") {
        p.ctx = {INT64_MAX, INT64_MAX};
        CHECK_THAT(refusal(p), Catch::Contains("overflow"));
    }
}

TEST_CASE("the splits option is refused for strategies other than fixed-split, the grid option for all but stream-k") {
    PlanOptions options;
    options.strategy = Strategy::stream_k;
    options.splits = 4;
    CHECK_THAT(refusal(good(), options), Catch::Contains("splits"));
    options.strategy = Strategy::no_split;
    CHECK_THAT(refusal(good(), options), Catch::Contains("splits"));
    options.splits = 0;
    options.grid = 7;
    CHECK_THAT(refusal(good(), options), Catch::Contains("grid"));
}

TEST_CASE("the default LeanTile is the paper's: 256 tokens up to head-dim 64, 128 above") {
    CHECK(default_tile(64) == 256);
    CHECK(default_tile(32) == 256);
    CHECK(default_tile(128) == 128);
    CHECK(default_tile(256) == 128);
}

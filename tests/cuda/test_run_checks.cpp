// What run() refuses before it enqueues anything (cuda/run_checks.hpp, decode.hpp's check_supported),
// checked on the CPU: the checks read only the views' pointers and strides, never the memory behind them.
#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/tensor_layout.hpp"
#include "cuda/decode.hpp"
#include "cuda/run_checks.hpp"

using namespace leanattn;

namespace {

Problem shape(std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim) {
    Problem p;
    p.batch = 2, p.q_heads = q_heads, p.kv_heads = kv_heads, p.head_dim = head_dim, p.tile = 128, p.ctx = {1000, 300};
    return p;
}

// Views of a layout with made-up, 256-byte-aligned addresses (nothing is read through them).
DecodeTensors fake_views(const Problem& p, CacheLayout layout) {
    DecodeTensors t = make_tensor_layout(p, DType::fp16, layout).views;
    auto at = [](std::uintptr_t a) { return reinterpret_cast<void*>(a); };
    t.q.data = at(0x10000), t.o.data = at(0x20000), t.lse.data = static_cast<float*>(at(0x30000));
    t.kv.k = at(0x40000), t.kv.v = at(0x50000);
    t.seqlens = static_cast<const std::int32_t*>(at(0x60000));
    if (layout == CacheLayout::paged) t.kv.block_table = static_cast<const std::int32_t*>(at(0x70000));
    if (layout == CacheLayout::ragged) t.kv.cu_seqlens = static_cast<const std::int32_t*>(at(0x80000));
    return t;
}

template <typename T>
T* shifted(T* p, std::uintptr_t bytes) { return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(p) + bytes); }

std::string refusal(const DecodeTensors& t) {
    try {
        cuda::check_alignment(t);
    } catch (const InputError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("the kernels cover fp16 and bf16, head_dim 64/96/128/256, any group and q_len 1-8 up to 1024 query rows per KV head, in tiles of 16 unless asked for up to 128 (64 at d 256)") {
    auto with_q_len = [](Problem p, std::int64_t q_len) {
        p.q_len = q_len;
        return p;
    };
    for (DType dtype : {DType::fp16, DType::bf16}) {
        for (std::int64_t d : {64, 96, 128, 256}) {
            for (std::int64_t g : {1, 2, 3, 4, 5, 7, 8, 16, 71, 128}) {
                for (std::int64_t q_len : {1, 2, 4, 8}) {
                    CAPTURE(d, g, q_len);
                    const Problem p = with_q_len(shape(g, 1, d), q_len);
                    CHECK_NOTHROW(cuda::check_supported(p, dtype));
                    CHECK(p.block_rows() <= cuda::max_q_rows(d));  // the default tile rows fit the kernels
                }
            }
        }
    }
    CHECK(cuda::max_q_rows(128) == 128);
    CHECK(cuda::max_q_rows(256) == 64);
    for (std::int64_t d : {64, 96, 128, 256}) CHECK(default_tile_rows <= cuda::max_q_rows(d));
    CHECK_THROWS_WITH(cuda::check_supported(shape(8, 8, 128), DType::fp32), Catch::StartsWith("q dtype fp32"));
    CHECK_THROWS_WITH(cuda::check_supported(shape(8, 8, 80), DType::fp16), Catch::StartsWith("head_dim 80") && Catch::Contains("64, 96, 128 or 256"));
    CHECK_THROWS_WITH(cuda::check_supported(shape(24, 8, 160), DType::fp16), Catch::StartsWith("head_dim 160"));
    CHECK_THROWS_WITH(cuda::check_supported(with_q_len(shape(256, 1, 128), 8), DType::fp16),
                      Catch::StartsWith("q (256 query heads over 1 KV heads x q_len 8 = 2048") && Catch::Contains("at most 1024"));
    CHECK_THROWS_WITH(cuda::check_supported(with_q_len(shape(129, 1, 64), 8), DType::fp16), Catch::Contains("= 1032 query rows"));
    CHECK_THROWS_WITH(cuda::check_supported(with_q_len(shape(8, 8, 128), 9), DType::fp16), Catch::StartsWith("q_len 9") && Catch::Contains("1 to 8"));
    Problem wide = shape(71, 1, 256);
    wide.tile_rows = 71;  // one tile of all 71 rows: more than the d-256 kernels hold
    CHECK_THROWS_WITH(cuda::check_supported(wide, DType::fp16), Catch::StartsWith("tile_rows 71") && Catch::Contains("at most 64 at head_dim 256"));
    wide.tile_rows = 64;
    CHECK_NOTHROW(cuda::check_supported(wide, DType::fp16));
}

TEST_CASE("16-byte aligned tensors of every layout pass the alignment check") {
    for (CacheLayout layout : {CacheLayout::padded, CacheLayout::token_major, CacheLayout::paged, CacheLayout::ragged}) {
        CAPTURE(cache_layout_name(layout));
        CHECK(refusal(fake_views(shape(32, 8, 64), layout)) == "accepted");
        CHECK(refusal(fake_views(shape(8, 1, 128), layout)) == "accepted");
    }
}

TEST_CASE("a pointer or stride the 16-byte vector loads cannot use is refused, naming the parameter") {
    const DecodeTensors good = fake_views(shape(32, 8, 64), CacheLayout::paged);
    DecodeTensors t = good;
    SECTION("q") { t.q.data = shifted(t.q.data, 2); CHECK_THAT(refusal(t), Catch::StartsWith("q (") && Catch::Contains("pointer")); }
    SECTION("out") { t.o.data = shifted(t.o.data, 8); CHECK_THAT(refusal(t), Catch::StartsWith("out (")); }
    SECTION("k_cache") { t.kv.k = shifted(t.kv.k, 4); CHECK_THAT(refusal(t), Catch::StartsWith("k_cache (")); }
    SECTION("v_cache") { t.kv.v = shifted(t.kv.v, 2); CHECK_THAT(refusal(t), Catch::StartsWith("v_cache (")); }
    SECTION("a q stride of 4 fp16 elements (8 bytes)") { t.q.stride_head = 4; CHECK_THAT(refusal(t), Catch::StartsWith("q (stride 4 ")); }
    SECTION("a K/V token stride of 12 elements") { t.kv.stride_token = 12; CHECK_THAT(refusal(t), Catch::StartsWith("k_cache (stride 12 ")); }
    SECTION("an out batch stride of 1004 elements (2008 bytes)") { t.o.stride_batch = 1004; CHECK_THAT(refusal(t), Catch::StartsWith("out (stride 1004 ")); }
    SECTION("softmax_lse off its 4-byte alignment") { t.lse.data = shifted(t.lse.data, 2); CHECK_THAT(refusal(t), Catch::StartsWith("softmax_lse (")); }
    SECTION("cache_seqlens off its 4-byte alignment") { t.seqlens = shifted(t.seqlens, 1); CHECK_THAT(refusal(t), Catch::StartsWith("cache_seqlens (")); }
    SECTION("block_table off its 4-byte alignment") { t.kv.block_table = shifted(t.kv.block_table, 2); CHECK_THAT(refusal(t), Catch::StartsWith("block_table (")); }
    SECTION("8 fp16 elements (16 bytes) is a fine stride") { t.q.stride_head = 8; CHECK(refusal(t) == "accepted"); }
    SECTION("an absent softmax_lse is fine") { t.lse.data = nullptr; CHECK(refusal(t) == "accepted"); }
    SECTION("staging looks at neither out nor softmax_lse (it writes neither)") {
        t.o.data = shifted(t.o.data, 8), t.o.stride_head = 3, t.lse.data = shifted(t.lse.data, 2);
        CHECK_THAT(refusal(t), Catch::StartsWith("out ("));
        CHECK_NOTHROW(cuda::check_alignment(t, Outputs::unused));
    }
}

TEST_CASE("the workspace must be there, 16-byte aligned, and as long as workspace_bytes(plan)") {
    const Schedule plan = make_schedule(shape(32, 8, 128), DeviceSpec{}, {});
    const std::size_t need = cuda::workspace_bytes(plan);
    void* base = reinterpret_cast<void*>(std::uintptr_t{0x100000});
    CHECK_NOTHROW(cuda::check_workspace(plan, base, need));
    CHECK_THROWS_WITH(cuda::check_workspace(plan, nullptr, need), Catch::StartsWith("workspace (is missing"));
    CHECK_THROWS_WITH(cuda::check_workspace(plan, shifted(base, 8), need), Catch::StartsWith("workspace (is not 16-byte aligned"));
    CHECK_THROWS_WITH(cuda::check_workspace(plan, base, need - 1), Catch::StartsWith("workspace_bytes " + std::to_string(need - 1)));
}

TEST_CASE("a stream-k plan runs only when its whole grid is resident at once on this GPU, and other plans never wait inside a launch") {
    DeviceSpec big;
    big.name = "twice-the-gpu";
    big.sms = 264, big.ctas_per_sm = 1;
    Problem p = shape(32, 32, 128);
    p.ctx = {40000, 40000};  // 2 × 32 × 313 LeanTiles: enough for any grid here
    const Schedule stream_k = make_schedule(p, big, PlanOptions{.strategy = Strategy::stream_k});
    REQUIRE(stream_k.grid == 264);
    const KvCacheView kv = fake_views(p, CacheLayout::paged).kv;
    CHECK_NOTHROW(cuda::check_residency(stream_k, kv, 264, 1));
    CHECK_NOTHROW(cuda::check_residency(stream_k, kv, 132, 2));
    CHECK_THROWS_WITH(cuda::check_residency(stream_k, kv, 132, 1),
                      Catch::StartsWith("plan (its grid of 264 CTAs (made for twice-the-gpu") && Catch::Contains("132 this GPU holds"));
    const Schedule fixed = make_schedule(p, big, PlanOptions{.strategy = Strategy::fixed_split});
    REQUIRE(fixed.grid > 132);
    CHECK_NOTHROW(cuda::check_residency(fixed, kv, 132, 1));
    CHECK_NOTHROW(cuda::check_residency(make_schedule(p, big, PlanOptions{.strategy = Strategy::no_split}), kv, 1, 1));
}

TEST_CASE("a plan of whole outputs beyond the resident CTAs runs only on a cache that holds no longer outputs than it was made for") {
    DeviceSpec gpu;
    gpu.sms = 132, gpu.ctas_per_sm = 1;
    Problem p = shape(32, 32, 128);
    p.ctx = {1000, 300};
    const Schedule plan = make_schedule(p, gpu, PlanOptions{.grid = 64, .snap = 8});  // 8 LeanTiles: every output's whole
    REQUIRE(plan.whole_outputs());
    // On a GPU holding 32 CTAs at once: whole outputs need no co-residency while no output outgrows the longest
    // planned (8 LeanTiles), whichever request it is.
    for (const CacheLayout layout : {CacheLayout::padded, CacheLayout::paged, CacheLayout::ragged}) {
        CAPTURE(cache_layout_name(layout));
        KvCacheView kv = fake_views(p, layout).kv;  // a cache of the longest request's capacity (paged: rounded up to blocks)
        CHECK_NOTHROW(cuda::check_residency(plan, kv, 32, 1));
        kv.capacity = 1025;  // a ninth LeanTile
        if (layout == CacheLayout::ragged) {
            CHECK_NOTHROW(cuda::check_residency(plan, kv, 32, 1));  // its parts are read on the device: the caller's to keep
        } else {
            CHECK_THROWS_WITH(cuda::check_residency(plan, kv, 32, 1), Catch::StartsWith("k_cache (holds 1025 tokens per request, more than the 1000"));
        }
        CHECK_NOTHROW(cuda::check_residency(plan, kv, 64, 1));  // all resident: any lengths
    }
}

TEST_CASE("check_supported refuses a malformed shape as InputError, before dividing by its head counts") {
    Problem p = shape(32, 8, 128);
    p.kv_heads = 0;
    CHECK_THROWS_AS(cuda::check_supported(p, DType::fp16), InputError);
}

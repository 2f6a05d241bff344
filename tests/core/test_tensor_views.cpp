// The address arithmetic every executor shares (core/decode_tensors.hpp) on the tools' layouts
// (core/tensor_layout.hpp): each token of each (request, KV head) has its own row inside the cache, at the
// place the layout's shape says; lengths and block ids that are out of range are clamped, never followed.
#include <catch2/catch.hpp>

#include <set>

#include "core/input_error.hpp"
#include "core/tensor_checks.hpp"
#include "core/tensor_layout.hpp"
#include "random_problems.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

constexpr CacheLayout all_layouts[] = {CacheLayout::padded, CacheLayout::token_major, CacheLayout::paged, CacheLayout::ragged};

Problem small_problem(std::mt19937_64& rng) {
    Problem p;
    p.batch = uniform(rng, 1, 5);
    p.kv_heads = uniform(rng, 1, 4);
    p.q_heads = p.kv_heads * uniform(rng, 1, 4);
    p.head_dim = 16 * uniform(rng, 1, 8);
    p.tile = 16 * uniform(rng, 1, 8);
    for (std::int64_t b = 0; b < p.batch; ++b) p.ctx.push_back(log_uniform(rng, 1, 700));
    return p;
}

// The layout's pointers set to the host vectors that hold its tables (the views only read them).
KvCacheView with_tables(const TensorLayout& t) {
    KvCacheView kv = t.views.kv;
    kv.block_table = t.block_table.empty() ? nullptr : t.block_table.data();
    kv.cu_seqlens = t.cu_seqlens.empty() ? nullptr : t.cu_seqlens.data();
    return kv;
}

// Where the layout's shape (tensor_layout.hpp) puts token t of (b, h), worked out from the shape alone.
std::int64_t expected_offset(const Problem& p, const TensorLayout& t, CacheLayout layout, std::int64_t b, std::int64_t h, std::int64_t tok) {
    const std::int64_t d = p.head_dim, n = p.max_ctx(), kvh = p.kv_heads;
    switch (layout) {
        case CacheLayout::padded: return ((b * kvh + h) * n + tok) * d;
        case CacheLayout::token_major: return ((b * n + tok) * kvh + h) * d;
        case CacheLayout::paged: {
            const std::int64_t bs = t.views.kv.block_size, per_request = (n + bs - 1) / bs;
            const std::int64_t block = t.block_table[static_cast<std::size_t>(b * per_request + tok / bs)];
            return ((block * bs + tok % bs) * kvh + h) * d;
        }
        case CacheLayout::ragged: return (h * p.total_ctx() + t.cu_seqlens[static_cast<std::size_t>(b)] + tok) * d;
    }
    return -1;
}

}  // namespace

TEST_CASE("in every layout, each token of each (request, KV head) has its own row, where the layout's shape puts it") {
    auto rng = seeded_rng(11);
    for (int i = 0; i < 300; ++i) {
        const Problem p = small_problem(rng);
        for (CacheLayout layout : all_layouts) {
            const std::int64_t block_size = uniform(rng, 1, 256);
            const TensorLayout t = make_tensor_layout(p, DType::fp16, layout, block_size, static_cast<std::uint64_t>(i));
            const KvCacheView kv = with_tables(t);
            CAPTURE(i, cache_layout_name(layout), block_size, describe(p, DeviceSpec{}));
            std::set<std::int64_t> rows;
            for (std::int64_t b = 0; b < p.batch; ++b) {
                for (std::int64_t h = 0; h < p.kv_heads; ++h) {
                    for (std::int64_t tok = 0; tok < p.ctx[b]; ++tok) {
                        const std::int64_t at = tensors::kv_offset(kv, b, h, tok);
                        REQUIRE(at == expected_offset(p, t, layout, b, h, tok));
                        REQUIRE(at >= 0);
                        REQUIRE(at + p.head_dim <= t.kv_elements);
                        REQUIRE(at % p.head_dim == 0);  // rows start on row boundaries: distinct offsets never overlap
                        rows.insert(at);
                    }
                }
            }
            REQUIRE(static_cast<std::int64_t>(rows.size()) == p.kv_heads * p.total_ctx());
        }
    }
}

TEST_CASE("a paged layout's requests own distinct blocks, at shuffled ids") {
    Problem p;
    p.batch = 3, p.q_heads = p.kv_heads = 2, p.head_dim = 64, p.tile = 64, p.ctx = {100, 33, 64};
    const TensorLayout t = make_tensor_layout(p, DType::bf16, CacheLayout::paged, 16, 7);
    CHECK(t.views.kv.num_blocks == 3 * 7);  // ⌈100 / 16⌉ = 7 blocks per request
    CHECK(t.views.kv.capacity == 7 * 16);
    std::set<std::int32_t> ids(t.block_table.begin(), t.block_table.end());
    CHECK(ids.size() == t.block_table.size());
    CHECK(*ids.begin() == 0);
    CHECK(*ids.rbegin() == 20);
    std::vector<std::int32_t> identity(t.block_table.size());
    for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<std::int32_t>(i);
    CHECK(t.block_table != identity);
}

TEST_CASE("a block id outside the cache is clamped into it, so a bad table never reads outside the cache") {
    Problem p;
    p.batch = 1, p.q_heads = p.kv_heads = 1, p.head_dim = 16, p.tile = 16, p.ctx = {8};
    TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::paged, 4, 1);
    KvCacheView kv = with_tables(t);
    const std::int64_t block = kv.stride_request;
    t.block_table = {-5, 99};
    kv.block_table = t.block_table.data();
    CHECK(tensors::kv_offset(kv, 0, 0, 1) == 0 * block + 1 * kv.stride_token);
    CHECK(tensors::kv_offset(kv, 0, 0, 6) == (kv.num_blocks - 1) * block + 2 * kv.stride_token);
}

TEST_CASE("live lengths are clamped to what the request's part of the cache holds") {
    Problem p;
    p.batch = 2, p.q_heads = p.kv_heads = 1, p.head_dim = 16, p.tile = 16, p.ctx = {50, 20};
    for (CacheLayout layout : all_layouts) {
        const TensorLayout t = make_tensor_layout(p, DType::fp16, layout, 16, 1);
        const KvCacheView kv = with_tables(t);
        CAPTURE(cache_layout_name(layout));
        const std::int64_t room1 = layout == CacheLayout::ragged ? 20 : kv.capacity;
        const std::int32_t lengths[] = {-3, 1 << 30};
        CHECK(tensors::live_tokens(kv, lengths, 0) == 0);
        CHECK(tensors::live_tokens(kv, lengths, 1) == room1);
        const std::int32_t fine[] = {37, 5};
        CHECK(tensors::live_tokens(kv, fine, 0) == 37);
        CHECK(tensors::live_tokens(kv, fine, 1) == 5);
    }
}

TEST_CASE("a ragged part that is reversed or starts before row 0 holds no token, so no kernel reads before k") {
    Problem p;
    p.batch = 3, p.q_heads = p.kv_heads = 1, p.head_dim = 16, p.tile = 16, p.ctx = {50, 20, 30};
    const TensorLayout t = make_tensor_layout(p, DType::fp16, CacheLayout::ragged, 16, 1);
    KvCacheView kv = with_tables(t);
    const std::int32_t lengths[] = {40, 20, 30};
    const std::int32_t before_k[] = {-8, 42, 62, 92};  // request 0's part is 50 rows long, from row -8
    kv.cu_seqlens = before_k;
    CHECK(tensors::live_tokens(kv, lengths, 0) == 0);
    CHECK(tensors::live_tokens(kv, lengths, 1) == 20);
    CHECK(tensors::live_tokens(kv, lengths, 2) == 30);
    const std::int32_t reversed[] = {0, 50, 30, 60};  // request 1's part ends before it begins
    kv.cu_seqlens = reversed;
    CHECK(tensors::live_tokens(kv, lengths, 0) == 40);
    CHECK(tensors::live_tokens(kv, lengths, 1) == 0);
    CHECK(tensors::live_tokens(kv, lengths, 2) == 30);
}

TEST_CASE("a run of consecutive tokens stops at a paged block's end and nowhere else") {
    Problem p;
    p.batch = 1, p.q_heads = p.kv_heads = 1, p.head_dim = 16, p.tile = 16, p.ctx = {100};
    const TensorLayout paged = make_tensor_layout(p, DType::fp16, CacheLayout::paged, 16, 1);
    CHECK(tensors::kv_run(paged.views.kv, 3, 100) == 13);
    CHECK(tensors::kv_run(paged.views.kv, 16, 100) == 16);
    CHECK(tensors::kv_run(paged.views.kv, 96, 100) == 4);
    const TensorLayout padded = make_tensor_layout(p, DType::fp16, CacheLayout::padded, 16, 1);
    CHECK(tensors::kv_run(padded.views.kv, 3, 100) == 97);
}

TEST_CASE("q, out and lse of the tools' layouts are dense in the documented order") {
    Problem p;
    p.batch = 3, p.q_heads = 8, p.kv_heads = 2, p.head_dim = 32, p.q_len = 2, p.tile = 16, p.ctx = {40, 40, 40};
    const TensorLayout t = make_tensor_layout(p, DType::fp32, CacheLayout::padded, 16, 1);
    CHECK(t.q_elements == 3 * 2 * 8 * 32);
    CHECK(t.lse_elements == 3 * 8 * 2);
    for (std::int64_t b = 0; b < 3; ++b) {
        for (std::int64_t s = 0; s < 2; ++s) {
            for (std::int64_t h = 0; h < 8; ++h) {
                CHECK(tensors::row_offset(t.views.q, b, s, h) == ((b * 2 + s) * 8 + h) * 32);  // (batch, q_len, heads, d)
                CHECK(tensors::row_offset(t.views.o, b, s, h) == ((b * 2 + s) * 8 + h) * 32);
                CHECK(tensors::lse_offset(t.views.lse, b, s, h) == (b * 8 + h) * 2 + s);  // (batch, heads, q_len)
            }
        }
    }
}

TEST_CASE("a paged block size outside 1..256 is refused naming the parameter") {
    Problem p;
    p.batch = 1, p.q_heads = p.kv_heads = 1, p.head_dim = 16, p.tile = 16, p.ctx = {8};
    CHECK_THROWS_WITH(make_tensor_layout(p, DType::fp16, CacheLayout::paged, 0, 1), Catch::Contains("block_size"));
    CHECK_THROWS_WITH(make_tensor_layout(p, DType::fp16, CacheLayout::paged, 257, 1), Catch::Contains("block_size"));
}

TEST_CASE("out's rows overlapping through two dimensions are refused, nested layouts of any order pass, absurd strides do not overflow") {
    Problem p;
    p.batch = 1, p.q_len = 3, p.q_heads = 4, p.kv_heads = 4, p.head_dim = 16, p.tile = 16, p.ctx = {40};
    std::vector<float> memory(1 << 16);
    const std::int32_t lengths[1] = {40};
    DecodeTensors t;
    t.dtype = DType::fp32;
    t.q = {memory.data(), 3 * 4 * 16, 4 * 16, 16};
    t.kv.k = t.kv.v = memory.data() + 4096;
    t.kv.stride_request = 40 * 4 * 16, t.kv.stride_token = 4 * 16, t.kv.stride_head = 16, t.kv.capacity = 40;
    t.seqlens = lengths;
    const auto out_with = [&](std::int64_t token, std::int64_t head) {
        DecodeTensors v = t;
        v.o = {memory.data() + 32768, 1 << 12, token, head};
        try {
            check_decode_tensors(p, v, false);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(out_with(64, 16) == "accepted");  // the usual (token, head, d)
    CHECK(out_with(16, 48) == "accepted");  // heads outermost
    // 2 tokens x 150 = 3 heads x 100: token 2 of head 0 is head 3's token 0, though no one step lands on a row
    CHECK_THAT(out_with(150, 100), Catch::Contains("out (rows overlap"));
    CHECK(out_with(150, 170) == "accepted");  // interleaved yet apart: 150, 300 against 170, 340, 510
    // Strides near 2^62: the arithmetic saturates (it overflowed, undefined behaviour), and such rows are refused.
    CHECK_THAT(out_with((std::int64_t{1} << 62) + 100, std::int64_t{1} << 62), Catch::Contains("out ("));
}

TEST_CASE("a view whose strides reach past the end of the address space is refused naming it, before its wrapped rows could land on another's") {
    Problem p;
    p.batch = 2, p.q_len = 1, p.q_heads = 2, p.kv_heads = 2, p.head_dim = 16, p.tile = 16, p.ctx = {40, 40};
    std::vector<float> memory(1 << 16);
    const std::int32_t lengths[2] = {40, 40};
    DecodeTensors t;
    t.dtype = DType::fp32;
    t.q = {memory.data(), 2 * 16, 2 * 16, 16};
    t.o = {memory.data() + 1024, 2 * 16, 2 * 16, 16};
    t.lse = {reinterpret_cast<float*>(memory.data() + 2048), 2, 1, 2};
    t.kv.k = memory.data() + 4096, t.kv.v = memory.data() + 16384;
    t.kv.stride_request = 40 * 2 * 16, t.kv.stride_token = 2 * 16, t.kv.stride_head = 16, t.kv.capacity = 40;
    t.seqlens = lengths;
    const auto refusal = [&](const DecodeTensors& v) {
        try {
            check_decode_tensors(p, v, true);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    REQUIRE(refusal(t) == "accepted");
    // Request 1's output 2^64 bytes past request 0's: the address wraps onto request 0's rows.
    DecodeTensors wrapped_out = t;
    wrapped_out.o.stride_batch = std::int64_t{1} << 62;
    CHECK_THAT(refusal(wrapped_out), Catch::Contains("out (strides reach past the end of the address space"));
    DecodeTensors wrapped_lse = t;
    wrapped_lse.lse.stride_batch = std::int64_t{1} << 61;
    CHECK_THAT(refusal(wrapped_lse), Catch::Contains("softmax_lse (strides reach past"));
    // No saturation, yet the last row lies past 2^64: a view near the top of the address space.
    DecodeTensors at_top = t;
    at_top.q.data = reinterpret_cast<void*>(UINTPTR_MAX - 100);  // q spans 256 bytes
    CHECK_THAT(refusal(at_top), Catch::Contains("q (strides reach past"));
    DecodeTensors wrapped_v = t;
    wrapped_v.kv.stride_head = std::int64_t{1} << 61;
    CHECK_THAT(refusal(wrapped_v), Catch::Contains("k_cache (strides reach past"));
}

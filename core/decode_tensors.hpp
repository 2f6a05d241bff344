// decode_tensors.hpp — the tensors of one decode step, as views of memory the caller owns (host or GPU
// memory alike), and the one piece of address arithmetic the CPU executor, the CUDA kernels and the float64
// reference all use to find a token.
//
// Shapes (element strides; the head dimension is always contiguous):
//   q, o     (batch, q_len, q_heads, head_dim)      dtype; as flash_attn_with_kvcache takes them
//   lse      (batch, q_heads, q_len)                fp32, natural log of the softmax denominator (optional)
//   k, v     one of three layouts, same layout and strides for both:
//     strided  request b's tokens at b·stride_request + t·stride_token + h·stride_head: covers the padded
//              (batch, kv_heads, N, d) cache and the token-major (batch, N, kv_heads, d) one
//     paged    (num_blocks, block_size, kv_heads, d) blocks; token t of request b lives in block
//              block_table[b][t / block_size], row t mod block_size
//     ragged   every request's tokens back to back (the paper's unpadded batch): request b's token t is
//              row cu_seqlens[b] + t of a (kv_heads, total, d) or (total, kv_heads, d) tensor
//   seqlens  (batch) int32: tokens of each request, the q_len new ones included
// Output tile o = b · kv_heads + h holds rows r = 0 … group·q_len − 1: query head h·group + r / q_len,
// query token r mod q_len, which sees the first seqlen − q_len + (r mod q_len) + 1 tokens (causal).
#pragma once

#include <cstdint>

#include "dtype.hpp"
#include "host_device.hpp"

namespace leanattn {

enum class KvLayout : std::int32_t { strided, paged, ragged };

// q or o: (batch, q_len, heads, head_dim). `data` is written only through o.
struct HeadTensor {
    void* data = nullptr;
    std::int64_t stride_batch = 0;
    std::int64_t stride_token = 0;
    std::int64_t stride_head = 0;
};

// lse: (batch, q_heads, q_len) float.
struct LseTensor {
    float* data = nullptr;
    std::int64_t stride_batch = 0;
    std::int64_t stride_head = 0;
    std::int64_t stride_token = 0;
};

struct KvCacheView {
    const void* k = nullptr;
    const void* v = nullptr;
    KvLayout layout = KvLayout::strided;
    std::int64_t stride_request = 0;  // strided: between requests; paged: between blocks; ragged: unused
    std::int64_t stride_token = 0;    // between consecutive tokens (within one block when paged)
    std::int64_t stride_head = 0;     // between KV heads
    std::int64_t capacity = 0;        // tokens one request can hold: strided N, paged max_blocks · block_size
    const std::int32_t* block_table = nullptr;  // paged: (batch, max_blocks), in the cache's memory space
    std::int64_t block_table_stride = 0;        // paged: elements between two requests' rows
    std::int64_t block_size = 0;                // paged: tokens per block
    std::int64_t num_blocks = 0;                // paged: blocks in the cache
    const std::int32_t* cu_seqlens = nullptr;   // ragged: (batch + 1) first row of each request
};

struct DecodeTensors {
    DType dtype = DType::fp16;
    HeadTensor q;
    HeadTensor o;
    LseTensor lse;                         // optional: data == nullptr skips it
    KvCacheView kv;
    const std::int32_t* seqlens = nullptr;  // (batch), same memory space as the tensors
    float softmax_scale = 0.0f;             // 0: 1/√head_dim
};

namespace tensors {

LEANATTN_HD inline std::int64_t row_offset(const HeadTensor& t, std::int64_t b, std::int64_t s, std::int64_t h) {
    return b * t.stride_batch + s * t.stride_token + h * t.stride_head;
}
LEANATTN_HD inline std::int64_t lse_offset(const LseTensor& t, std::int64_t b, std::int64_t s, std::int64_t h) {
    return b * t.stride_batch + h * t.stride_head + s * t.stride_token;
}

// Element offset of token t of (request b, kv-head h) in K (and V: same strides). A paged block id outside
// [0, num_blocks) is clamped into it: a bad table then gives a wrong answer, never a read outside the cache
// (the host checks the table wherever it can read it).
LEANATTN_HD inline std::int64_t kv_offset(const KvCacheView& kv, std::int64_t b, std::int64_t h, std::int64_t t) {
    switch (kv.layout) {
        case KvLayout::strided: return b * kv.stride_request + t * kv.stride_token + h * kv.stride_head;
        case KvLayout::paged: {
            std::int64_t block = kv.block_table[b * kv.block_table_stride + t / kv.block_size];
            block = block < 0 ? 0 : (block >= kv.num_blocks ? kv.num_blocks - 1 : block);
            return block * kv.stride_request + (t % kv.block_size) * kv.stride_token + h * kv.stride_head;
        }
        case KvLayout::ragged: return (kv.cu_seqlens[b] + t) * kv.stride_token + h * kv.stride_head;
    }
    return 0;
}

// How many tokens from t (up to `end`) sit `stride_token` apart from token t: the whole range, except in a
// paged cache, where a run stops at the end of t's block.
LEANATTN_HD inline std::int64_t kv_run(const KvCacheView& kv, std::int64_t t, std::int64_t end) {
    if (kv.layout != KvLayout::paged) return end - t;
    const std::int64_t block_end = (t / kv.block_size + 1) * kv.block_size;
    return (block_end < end ? block_end : end) - t;
}

// The tokens request b holds now: seqlens[b], clamped to what its part of the cache can hold, so that no
// length (however wrong) makes a kernel read outside the cache.
LEANATTN_HD inline std::int64_t live_tokens(const KvCacheView& kv, const std::int32_t* seqlens, std::int64_t b) {
    const std::int64_t room = kv.layout == KvLayout::ragged ? kv.cu_seqlens[b + 1] - kv.cu_seqlens[b] : kv.capacity;
    const std::int64_t n = seqlens[b];
    return n < 0 ? 0 : (n > room ? room : n);
}

}  // namespace tensors

}  // namespace leanattn

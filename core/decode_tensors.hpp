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
// KV head h of request b holds rows r = 0 … group·q_len − 1: query head h·group + r / q_len, query token r mod q_len,
// which sees the first seqlen − q_len + (r mod q_len) + 1 tokens (causal); they lie in output tiles (b · kv_heads + h)
// · row_blocks + block, each of up to Problem::block_rows of them (problem.hpp).
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

// Where the tokens of one (request b, kv-head h) live: the per-request part of the address arithmetic done
// once, so that a kernel's per-token work is a multiply-add (strided, ragged) or a table lookup with shifts
// (paged, power-of-two block sizes). offset(t) is the element offset of token t in K (and in V: same
// strides). A paged block id outside [0, num_blocks) is clamped into it: a bad table then gives a wrong
// answer, never a read outside the cache (the host checks the table wherever it can read it).
struct KvTokens {
    std::int64_t base = 0;          // strided: b·stride_request + h·stride_head; ragged: cu_seqlens[b]·stride_token
                                    // + h·stride_head; paged: h·stride_head
    std::int64_t stride_token = 0;
    const std::int32_t* table = nullptr;  // paged: request b's row of the block table; nullptr otherwise
    std::int64_t stride_block = 0, block_size = 1, num_blocks = 0;
    int block_shift = -1;           // paged: log2(block_size) when it is a power of two, else −1

    LEANATTN_HD std::int64_t offset(std::int64_t t) const {
        if (table == nullptr) return base + t * stride_token;
        const bool pow2 = block_shift >= 0;
        std::int64_t block = table[pow2 ? t >> block_shift : t / block_size];
        block = block < 0 ? 0 : (block >= num_blocks ? num_blocks - 1 : block);
        const std::int64_t row = pow2 ? t & (block_size - 1) : t % block_size;
        return base + block * stride_block + row * stride_token;
    }
};

LEANATTN_HD inline KvTokens kv_tokens(const KvCacheView& kv, std::int64_t b, std::int64_t h) {
    KvTokens at;
    at.stride_token = kv.stride_token;
    switch (kv.layout) {
        case KvLayout::strided: at.base = b * kv.stride_request + h * kv.stride_head; break;
        case KvLayout::ragged: at.base = kv.cu_seqlens[b] * kv.stride_token + h * kv.stride_head; break;
        case KvLayout::paged: {
            at.base = h * kv.stride_head;
            at.table = kv.block_table + b * kv.block_table_stride;
            at.stride_block = kv.stride_request;
            at.block_size = kv.block_size;
            at.num_blocks = kv.num_blocks;
            if (kv.block_size > 0 && (kv.block_size & (kv.block_size - 1)) == 0) {
                int shift = 0;
                while ((std::int64_t{1} << shift) < kv.block_size) ++shift;
                at.block_shift = shift;
            }
            break;
        }
    }
    return at;
}

// Element offset of token t of (request b, kv-head h) in K (and V): kv_tokens(kv, b, h).offset(t).
LEANATTN_HD inline std::int64_t kv_offset(const KvCacheView& kv, std::int64_t b, std::int64_t h, std::int64_t t) {
    return kv_tokens(kv, b, h).offset(t);
}

// How many tokens from t (up to `end`) sit `stride_token` apart from token t: the whole range, except in a
// paged cache, where a run stops at the end of t's block.
LEANATTN_HD inline std::int64_t kv_run(const KvCacheView& kv, std::int64_t t, std::int64_t end) {
    if (kv.layout != KvLayout::paged) return end - t;
    const std::int64_t block_end = (t / kv.block_size + 1) * kv.block_size;
    return (block_end < end ? block_end : end) - t;
}

// The tokens request b holds now: seqlens[b], clamped to what its part of the cache can hold, so that no
// length (however wrong) makes a kernel read outside the cache. A ragged cache's part is [cu_seqlens[b],
// cu_seqlens[b + 1]): one that is reversed or starts before row 0 holds nothing (where it ends is the caller's to keep
// within k and v, whose rows no view knows).
LEANATTN_HD inline std::int64_t live_tokens(const KvCacheView& kv, const std::int32_t* seqlens, std::int64_t b) {
    const std::int64_t room = kv.layout != KvLayout::ragged ? kv.capacity : kv.cu_seqlens[b] < 0 ? 0 : kv.cu_seqlens[b + 1] - kv.cu_seqlens[b];
    const std::int64_t n = seqlens[b];
    return n <= 0 || room <= 0 ? 0 : (n > room ? room : n);
}

}  // namespace tensors

}  // namespace leanattn

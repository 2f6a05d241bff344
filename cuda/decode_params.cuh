// decode_params.cuh — everything one decode-attention launch reads, as one plain struct.
//
// Tensors (device memory, row-major):
//   Q   (batch, q_heads, q_len=1, head_dim)        fp16 or bf16
//   K,V (batch, kv_heads, max_ctx, head_dim)       fp16 or bf16; request b uses its first ctx[b] tokens
//   O   (batch, q_heads, q_len=1, head_dim)        same type as Q
//   LSE (batch, q_heads, q_len=1)                  fp32, natural log of the softmax denominator
// Output tile o = b * kv_heads + h holds query heads h*group … h*group+group−1 (contiguous in Q and O).
#pragma once

#include <cstdint>

#include "core/plan_view.hpp"

namespace leanattn::cuda {

struct DecodeParams {
    PlanView plan;                  // its request arrays point to device memory
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    void* o = nullptr;
    float* lse = nullptr;
    const std::int64_t* ctx = nullptr;  // (batch) context length of each request, device memory
    std::int64_t max_ctx = 0;           // K/V stride between (request, kv-head) slices, in tokens
    std::int64_t tile = 0;              // LeanTile in tokens
    std::int64_t group = 1;             // query heads per KV head = rows of an output tile
    float scale_log2 = 0.0f;            // softmax scale 1/sqrt(d), times log2(e): scores go through exp2
    float* partials = nullptr;          // (grid, group*head_dim + 2*group): un-scaled O, then m, then l
    int* flags = nullptr;               // (grid) set to `epoch` when a CTA's partial is stored
    int epoch = 1;                      // changes every launch, so flags never need clearing
    bool fused = true;                  // stream-k: hosts reduce in this launch; else every split stores
};

}  // namespace leanattn::cuda

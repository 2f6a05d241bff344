// problem.hpp — one decode-attention problem: shapes and per-request context lengths.
//
// Tensors it describes (GQA: q_heads = kv_heads × group):
//   Q (batch, q_len, q_heads, head_dim)    K, V: ctx[b] tokens of kv_heads heads per request    O like Q
//   (their layouts, strides and cache kinds: decode_tensors.hpp)
// The query rows of one KV head are its group · q_len (query head, new token) pairs. An output tile is one
// (request, KV head) pair holding all of them, so its keys and values are read once; where they are more
// than one tile holds (tile_rows, default_tile_rows below), they are cut into row_blocks blocks of
// block_rows = ⌈rows / row_blocks⌉ rows (the last may hold fewer), each its own output tile reading the KV
// head's keys and values again (blocks of one head are neighbours in the iteration space: mostly from L2).
// Output ids run batch-major: o = (b · kv_heads + h) · row_blocks + block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace leanattn {

struct Problem {
    std::int64_t batch = 1;
    std::int64_t q_heads = 32;
    std::int64_t kv_heads = 32;
    std::int64_t head_dim = 128;
    std::int64_t q_len = 1;
    std::int64_t tile = 128;          // LeanTile: context tokens per tile
    std::int64_t tile_rows = 0;       // query rows one output tile holds at most; 0: default_tile_rows
    std::vector<std::int64_t> ctx;    // one context length per request (size batch)

    std::int64_t group() const { return q_heads / kv_heads; }
    std::int64_t rows() const { return group() * q_len; }  // query rows of one KV head: row r is new token r mod q_len of its query head r / q_len
    std::int64_t max_tile_rows() const;
    std::int64_t row_blocks() const { return (rows() - 1) / max_tile_rows() + 1; }
    std::int64_t block_rows() const { return (rows() - 1) / row_blocks() + 1; }  // rows of every block but the last (≤ tile rows)
    // The rows the GPU kernels compute a tile with: block_rows(), but 2 for a one-row tile of several new tokens, whose
    // row needs its causal end, which only the tensor-core kernels (two rows and more) apply. The one-row kernel (CUDA
    // cores) serves one-row tiles of one new token, whose row sees every token of its segment.
    std::int64_t kernel_tile_rows() const { return block_rows() == 1 && q_len > 1 ? 2 : block_rows(); }
    std::int64_t outputs_per_request() const { return kv_heads * row_blocks(); }
    std::int64_t outputs() const { return batch * outputs_per_request(); }
    std::int64_t request_of(std::int64_t output) const { return output / outputs_per_request(); }
    std::int64_t kv_head_of(std::int64_t output) const { return output % outputs_per_request() / row_blocks(); }
    std::int64_t first_row_of(std::int64_t output) const { return output % row_blocks() * block_rows(); }
    std::int64_t rows_of(std::int64_t output) const { return std::min(block_rows(), rows() - first_row_of(output)); }
    // LeanTiles of one output tile of request b: ceil(ctx[b] / tile); the last may be partial. Written so
    // that no sum can overflow, whatever the tile (ctx ≥ 1 and tile ≥ 1 once check_problem has passed).
    std::int64_t tiles_of_request(std::int64_t b) const { return (ctx[b] - 1) / tile + 1; }
    std::int64_t tiles_of_output(std::int64_t output) const { return tiles_of_request(request_of(output)); }
    std::int64_t max_ctx() const;
    std::int64_t total_ctx() const;
    // Bytes of K and V one decode step must read: each request's own tokens, K and V, every KV head. The one
    // place this is computed (the floor, GB/s and the simulator's traffic all divide by it).
    std::int64_t kv_bytes(std::int64_t bytes_per_element) const { return 2 * total_ctx() * kv_heads * head_dim * bytes_per_element; }
};

// The longest LeanTile check_problem accepts, in tokens (2^30).
inline constexpr std::int64_t max_tile = std::int64_t{1} << 30;

// The paper's LeanTile for a head dimension: 256 tokens for d ≤ 64, 128 above (Section IV-B).
std::int64_t default_tile(std::int64_t head_dim);

// The query rows one output tile holds unless the problem says otherwise: 16, one tensor-core tile (mma's M). Measured
// on an H100 (bench/NOTES.md, row blocks), a GPU kernel's tile of more rows costs about as much per row as
// that many tiles of 16 but runs on one SM, so tiles of 16 that each re-read K and V (mostly from L2) were
// 1.3-3.8x faster on MQA and speculative shapes, and at most 1.2x slower (Llama-3.1-405B, B=8, q_len 8).
// The CPU executor and the simulator cut the rows the same way, so a plan means the same to all three.
inline constexpr std::int64_t default_tile_rows = 16;

// The most query rows one output tile of leanattn's GPU kernels holds: 128, 64 at head dim 256 (their registers and
// shared memory). Plans that will run there (sim::choose_strategy's larger tiles, the CUDA checks) keep within it.
inline constexpr std::int64_t largest_gpu_tile_rows(std::int64_t head_dim) { return head_dim == 256 ? 64 : 128; }

// Throws InputError naming the offending parameter (batch, q_heads, kv_heads, head_dim, q_len, tile, tile_rows, ctx)
// when the problem is not well formed: sizes ≤ 0, q_heads not divisible by kv_heads, a ctx list whose
// length is not the batch, a negative tile_rows, a tile that is not a positive multiple of 16 (or beyond max_tile), or sizes whose LeanTile or element
// counts overflow 64 bits.
void check_problem(const Problem& problem);

}  // namespace leanattn

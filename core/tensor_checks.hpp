// tensor_checks.hpp — refuses tensor views that do not fit a problem, naming the API's parameter.
//
// Parameter names are the Python API's (flash_attn_with_kvcache's): q, k_cache, v_cache, cache_seqlens,
// block_table, cu_seqlens, out, softmax_lse, softmax_scale. The C ABI and the CLI map them to their own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decode_tensors.hpp"
#include "problem.hpp"

namespace leanattn {

// Throws InputError when a pointer the layout needs is missing, a stride is negative, the paged or ragged
// fields are inconsistent, or the cache holds fewer tokens than the problem's context lengths (the
// capacities a plan is made for). With `host_readable` (the views point to host memory) it also reads
// cache_seqlens, block_table and cu_seqlens: every length must be 0 (an empty slot, whose rows get out 0 and lse −∞) or
// lie in [q_len, what the request's part of the cache holds], and every block id a length reaches must lie in
// [0, num_blocks).
// It also refuses out or softmax_lse whose own elements overlap or that lie on q, K, V, cache_seqlens, block_table or
// cu_seqlens, unless `outputs` says the
// call does not write them (staging a step, cuda::stage_step, writes only the workspace: the Python package passes q there).
enum class Outputs { written, unused };
void check_decode_tensors(const Problem& shape, const DecodeTensors& tensors, bool host_readable, Outputs outputs = Outputs::written);

// The bytes [begin, end) a run writes: out's and, when present, softmax_lse's (their strides are non-negative: checked
// above). softmax_lse overlapping out is refused by check_decode_tensors, and either overlapping cache_seqlens, block_table
// or cu_seqlens too; a workspace overlapping anything the run reads or writes (out, softmax_lse, q, K, V, the lengths,
// block table and cu_seqlens) by check_workspace_apart, which the executors call (`host_readable` as above: a ragged
// cache's extent needs cu_seqlens read; `outputs` unused: a staged step's staging, which writes the workspace alone,
// so its out and softmax_lse are not compared).
struct ByteRange {
    std::uintptr_t begin = 0, end = 0;
    bool beyond_address_space = false;  // its last byte lies past 2^64 (end is then capped there): check_decode_tensors refuses it
    bool overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
};
ByteRange out_bytes(const Problem& shape, const DecodeTensors& tensors);
ByteRange lse_bytes(const Problem& shape, const DecodeTensors& tensors);  // empty without one
void check_workspace_apart(const Problem& shape, const DecodeTensors& tensors, const void* workspace, std::size_t bytes, bool host_readable,
                           Outputs outputs = Outputs::written);

}  // namespace leanattn

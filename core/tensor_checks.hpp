// tensor_checks.hpp — refuses tensor views that do not fit a problem, naming the API's parameter.
//
// Parameter names are the Python API's (flash_attn_with_kvcache's): q, k_cache, v_cache, cache_seqlens,
// block_table, cu_seqlens, out, softmax_lse, softmax_scale. The C ABI and the CLI map them to their own.
#pragma once

#include "decode_tensors.hpp"
#include "problem.hpp"

namespace leanattn {

// Throws InputError when a pointer the layout needs is missing, a stride is negative, the paged or ragged
// fields are inconsistent, or the cache holds fewer tokens than the problem's context lengths (the
// capacities a plan is made for). With `host_readable` (the views point to host memory) it also reads
// cache_seqlens, block_table and cu_seqlens: every length must lie in [q_len, what the request's part of the
// cache holds] and every block id a length reaches must lie in [0, num_blocks).
void check_decode_tensors(const Problem& shape, const DecodeTensors& tensors, bool host_readable);

}  // namespace leanattn

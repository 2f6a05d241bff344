// run_checks.hpp — what run() refuses before it enqueues anything, as plain functions a CPU test can call.
// Each throws InputError naming the API's parameter (q, out, k_cache, v_cache, softmax_lse, workspace).
// check_supported (the shapes the kernels cover) is part of the API: decode.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"
#include "core/tensor_checks.hpp"

namespace leanattn::cuda {

// The kernels move q, K and V in 16-byte vectors: those pointers, out's, and every stride of them (in
// bytes) must be multiples of 16. Lengths, tables and LSE are read and written as scalars: their natural
// alignment. out and softmax_lse are not looked at where the call does not write them (Outputs::unused: staging).
void check_alignment(const DecodeTensors& tensors, Outputs outputs = Outputs::written);

// The workspace must be present, 16-byte aligned and at least workspace_bytes(plan) long.
void check_workspace(const Schedule& plan, const void* workspace, std::size_t bytes);

// The can_implement guard. A plan whose hosts wait for peers inside the launch (stream-k) runs only when
// all its CTAs can be resident at once on this GPU: grid ≤ SMs × CTAs of this kernel per SM. That is the
// condition that holds for any live lengths: the plan was checked for co-residency at the lengths it was
// made for, but shorter live lengths move CTA boundaries, so a grid beyond what is resident could make a
// host wait on a CTA that never starts. Plans without a fused reduction never wait inside a launch. A grid beyond them
// is let through only for a plan of whole outputs (Schedule::whole_outputs), which no host waits in while no live output
// holds more LeanTiles than the longest it was made for: then a strided or paged cache `kv` must hold no more LeanTiles
// per request than that (a ragged cache's parts, read on the device, are the caller's to keep within it).
void check_residency(const Schedule& plan, const KvCacheView& kv, std::int64_t sms, std::int64_t ctas_per_sm);

}  // namespace leanattn::cuda

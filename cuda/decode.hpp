// decode.hpp — the CUDA decode API: make a plan once, run it every decode step on the caller's stream.
//
//     const Problem shape = …;                        // ctx: the tokens each request's cache can hold
//     const Schedule plan = make_schedule(shape, cuda::live_device(shape, DType::fp16), {});
//     void* workspace;  cudaMalloc(&workspace, cuda::workspace_bytes(plan));
//     cuda::run(plan, tensors, workspace, cuda::workspace_bytes(plan), stream);   // every step
//
// run() allocates nothing, never synchronizes and leaves the workspace ready for the next call, so a step
// can be captured in a CUDA graph and replayed while cache_seqlens (device memory) change: a prologue kernel
// derives the plan's per-request arrays from the live lengths at each run (core/live_plan.hpp's functions,
// so host and device agree by construction) and clears the peers' flags; the decode kernel then walks the
// plan's grid over the live LeanTiles (CTAs left without work exit at once).
//
// Tensor views and their shapes: core/decode_tensors.hpp; every pointer in them is device memory. Supported
// (check_supported): fp16 or bf16, head_dim 64, 96, 128 or 256, q_len 1 to 8 (causal among the new tokens:
// core/decode_tensors.hpp), any number of query heads per KV head (GQA, MQA) up to max_kv_head_rows query rows
// (group · q_len) per KV head, cut into output tiles of Problem::tile_rows rows (16 unless asked otherwise; at most
// max_q_rows(head_dim): 128, 64 at head dim 256), each tile reading its KV head's K and V; any
// strided, paged (block size 1–256) or ragged cache whose pointers and strides are 16-byte aligned. Live
// lengths must be 0 (a padded batch's empty slot) or lie in [q_len, what the request's part of the cache holds];
// out-of-range values are clamped into [0, that], so no length reads outside the cache, and a row that sees no token
// (a request shorter than q_len, or of length 0) gets out 0 and lse −∞, in every kind of step. Host-only header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "core/decode_tensors.hpp"
#include "core/device_spec.hpp"
#include "core/schedule.hpp"

namespace leanattn::cuda {

// Throws InputError (naming the API's parameter: q, q_len, head_dim) when the kernels do not cover this
// shape or dtype.
void check_supported(const Problem& shape, DType dtype);

// New tokens per request the kernels decode at most (speculative decoding's drafts), the most query rows
// (group · q_len) of one KV head, and the most one output tile may hold at a head dim (Problem::tile_rows).
inline constexpr std::int64_t max_q_len = 8;
inline constexpr std::int64_t max_kv_head_rows = 1024;
std::int64_t max_q_rows(std::int64_t head_dim);

// True when a CUDA device can be used; otherwise `why` says what is missing (no driver, a driver older than the
// runtime, no GPU, or a GPU this build has no code for: older than the architectures it was built for).
bool device_available(std::string* why = nullptr);

// The current GPU as a DeviceSpec: its name, its SM count, and how many CTAs of the kernel that serves
// `shape` fit on one SM (so that a stream-k plan's hosts only ever wait on co-resident CTAs). The planner's
// cost fields come from `timing` (by default the built-in figures, h100-sxm.json's). Throws InputError when
// check_supported does, std::runtime_error where no GPU can be used (device_available says why).
DeviceSpec live_device(const Problem& shape, DType dtype, const DeviceTiming& timing = {});

// The current GPU's name as CUDA reports it (cudaDeviceProp::name, e.g. "NVIDIA H200"): what picks the device file
// that describes it (the CLI's and the library's default device).
std::string current_device_name();

// Bytes of device memory run() needs for `plan` (live per-request arrays, flags, partials: workspace.hpp).
// A workspace serves one step at a time: steps that may run concurrently (other streams) need their own.
std::size_t workspace_bytes(const Schedule& plan);

// Enqueues one decode step on `stream`: the prologue, the decode kernel and, for fixed-split with more than
// one split, the reduce kernel. Throws InputError before enqueuing anything when the tensors do not fit the
// plan (core/tensor_checks.hpp with host_readable = false, the shapes above, 16-byte alignment), the
// workspace is missing or short, or the plan's grid exceeds what this GPU holds at once for the kernel
// while its hosts wait inside the launch (a plan made for another GPU could deadlock), or, for a plan of whole
// outputs beyond it, the cache holds longer outputs than the plan was made for (cuda/run_checks.hpp says why; a
// ragged cache's parts, read on the device, are the caller's to keep within the plan's lengths).
// A CUDA error at launch throws std::runtime_error.
void run(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// This step's lengths in host memory: seqlens (batch) int32, equal to tensors.seqlens' on the device; for a
// ragged cache its cu_seqlens (batch + 1) too.
struct HostLengths {
    const std::int32_t* seqlens = nullptr;
    const std::int32_t* cu_seqlens = nullptr;
};

// A host-lengths step: one decode step whose lengths the host knows as it launches. The host walks the plan at
// those lengths (the segments a step of run() would find on the device) and passes every CTA's segments in
// the decode kernel's launch (cuda/step_table.hpp): no prologue kernel runs, and no CTA waits for one or
// searches the plan before its first copy. The same checks as run(); the kernels read the lengths from the
// launch, not from tensors.seqlens, so a captured step replays only with the lengths it was made with. The
// workspace's flags must be zero before its first step: zero the workspace once after allocating it (every
// step, of either kind, leaves them zero). A plan whose CTAs or segments at these lengths exceed what one
// launch's table holds runs as run() does, its lengths read on the device.
void run(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, void* workspace, std::size_t workspace_bytes,
         cudaStream_t stream);

// A staged step: a host-lengths step whose table the workspace holds, for a step captured in a CUDA graph and replayed
// while the lengths change. Before each replay, outside the capture, stage_step walks the plan at that step's lengths
// and copies the table into the workspace on `stream` (a pageable copy: the host's buffer is free again when it
// returns); the captured run_staged launches kernels that read it there. On an H100 such a step took 1.01-1.07x a
// host-lengths step's time and 0.86-0.97x a captured run()'s (bench/NOTES.md, v33); a copy made inside the graph would
// cost ~9 us a replay, so stage_step refuses a capturing stream. stage_step checks what run() checks but out and
// softmax_lse, which it neither reads nor writes (any views will do there). A plan whose steps
// may need more CTAs or segments than a table holds stages nothing and runs as run() does, its lengths read on the
// device. run_staged reads whatever was staged last: stage every step, on the replay's stream.
void stage_step(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, void* workspace, std::size_t workspace_bytes,
                cudaStream_t stream);
void run_staged(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace leanattn::cuda

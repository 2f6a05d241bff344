// decode.hpp — the CUDA decode API: make a plan once, run it every decode step on the caller's stream.
//
//     const Problem shape = …;                        // ctx: the tokens each request's cache can hold
//     const Schedule plan = make_schedule(shape, cuda::live_device(shape, DType::fp16), {});
//     void* workspace;  cudaMalloc(&workspace, cuda::workspace_bytes(plan));
//     cuda::run(plan, tensors, workspace, cuda::workspace_bytes(plan), stream);   // every step
//
// run() allocates nothing, never synchronizes and leaves the workspace ready for the next call, so a step
// can be captured in a CUDA graph and replayed while cache_seqlens (device memory) change: the plan's
// per-request arrays are derived on the device from the live lengths at each run.
// Tensor views and their shapes: core/decode_tensors.hpp. Host-only header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/decode_tensors.hpp"
#include "core/device_spec.hpp"
#include "core/schedule.hpp"

namespace leanattn::cuda {

// Throws InputError (naming the API's parameter) when the kernels do not cover this shape or dtype.
void check_supported(const Problem& shape, DType dtype);

// The current GPU as a DeviceSpec: its SM count, and how many CTAs of the kernel that serves `shape` fit on
// one SM (so that a stream-k plan's hosts only ever wait on co-resident CTAs). The planner's cost fields come
// from `timing`.
DeviceSpec live_device(const Problem& shape, DType dtype, const DeviceTiming& timing = {});

// Bytes of device memory run() needs for `plan` (per-request arrays, flags, partials).
std::size_t workspace_bytes(const Schedule& plan);

// Enqueues one decode step on `stream`. Throws InputError before enqueuing anything when the tensors do not
// fit the plan (device pointers, 16-byte alignment, shapes) or the plan was made for more resident CTAs
// than this GPU holds for the kernel (it could deadlock).
void run(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace leanattn::cuda

// gpu_backend.hpp — what the C ABI needs of the CUDA code, behind one seam: gpu_backend_cuda.cpp when the
// library is built with its kernels, gpu_backend_absent.cpp (which refuses CUDA plans) otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"

namespace leanattn::capi::gpu {

// Every call but built() first makes `device` (a GPU ordinal) current for the library's CUDA runtime.
bool built();
DeviceSpec live_device(int device, const Problem& shape, DType dtype, const DeviceTiming& timing);
// The GPU's name as CUDA reports it (cuda::current_device_name).
std::string device_name(int device);
std::size_t workspace_bytes(int device, const Schedule& plan);
void run(int device, const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, void* stream);
// A host-lengths step (cuda/decode.hpp): the lengths in host memory too.
void run_host_lengths(int device, const Schedule& plan, const DecodeTensors& tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens,
                 void* workspace, std::size_t bytes, void* stream);
// A staged step (cuda/decode.hpp): the table staged into the workspace, then the step that reads it there.
void stage_step(int device, const Schedule& plan, const DecodeTensors& tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens,
                void* workspace, std::size_t bytes, void* stream);
void run_staged(int device, const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, void* stream);

}  // namespace leanattn::capi::gpu

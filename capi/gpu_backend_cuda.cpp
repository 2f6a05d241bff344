// gpu_backend_cuda.cpp — the C ABI's CUDA plans, through the CUDA API (cuda/decode.hpp).
//
// The library carries its own (static) CUDA runtime, whose current device is its own: a caller's
// cudaSetDevice (PyTorch's, say) does not reach it. So every call names the GPU and makes it current here.
#include <cuda_runtime_api.h>

#include <string>

#include "core/input_error.hpp"
#include "cuda/decode.hpp"
#include "gpu_backend.hpp"

namespace leanattn::capi::gpu {

namespace {

void use_device(int device) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) {
        throw InputError("cuda_device " + std::to_string(device), "no such GPU (" + std::to_string(count) + " visible)");
    }
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != device) {
        const cudaError_t status = cudaSetDevice(device);
        if (status != cudaSuccess) throw std::runtime_error(std::string("cudaSetDevice: ") + cudaGetErrorString(status));
    }
}

}  // namespace

bool built() { return true; }

DeviceSpec live_device(int device, const Problem& shape, DType dtype, const DeviceTiming& timing) {
    use_device(device);
    return cuda::live_device(shape, dtype, timing);
}

std::string device_name(int device) {
    use_device(device);
    return cuda::current_device_name();
}

std::size_t workspace_bytes(int device, const Schedule& plan) {
    use_device(device);
    return cuda::workspace_bytes(plan);
}

void run(int device, const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, void* stream) {
    use_device(device);
    cuda::run(plan, tensors, workspace, bytes, static_cast<cudaStream_t>(stream));
}

void run_host_lengths(int device, const Schedule& plan, const DecodeTensors& tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens,
                 void* workspace, std::size_t bytes, void* stream) {
    use_device(device);
    cuda::run(plan, tensors, cuda::HostLengths{host_seqlens, host_cu_seqlens}, workspace, bytes, static_cast<cudaStream_t>(stream));
}

void stage_step(int device, const Schedule& plan, const DecodeTensors& tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens,
                void* workspace, std::size_t bytes, void* stream) {
    use_device(device);
    cuda::stage_step(plan, tensors, cuda::HostLengths{host_seqlens, host_cu_seqlens}, workspace, bytes, static_cast<cudaStream_t>(stream));
}

void run_staged(int device, const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, void* stream) {
    use_device(device);
    cuda::run_staged(plan, tensors, workspace, bytes, static_cast<cudaStream_t>(stream));
}

}  // namespace leanattn::capi::gpu

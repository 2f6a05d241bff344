// gpu_backend_cuda.cpp — the C ABI's CUDA plans, through the CUDA API (cuda/decode.hpp).
//
// Every call names its plan's GPU and makes it current for the call alone. The library's CUDA runtime is its own
// (static), but the current context it sets is the driver's, per thread, which the caller's runtime reads too: a GPU
// made current and left so became PyTorch's torch.cuda.current_device() (measured on two H200s). So each call puts the
// thread's context back as it found it, none included.
#include <cuda.h>  // CUcontext and the two context calls' types: the calls themselves come from the runtime, unlinked
#include <cuda_runtime_api.h>

#include <string>

#include "core/input_error.hpp"
#include "cuda/decode.hpp"
#include "gpu_backend.hpp"

namespace leanattn::capi::gpu {

namespace {

// The driver's cuCtxGetCurrent and cuCtxSetCurrent, found through the runtime (linking libcuda would keep the library
// from loading where no driver is installed, as on a CPU-only machine that loads it for CPU plans). Null where not found.
struct ContextCalls {
    CUresult (*get)(CUcontext*) = nullptr;
    CUresult (*set)(CUcontext) = nullptr;
};
const ContextCalls& context_calls() {
    static const ContextCalls calls = [] {
        ContextCalls c;
        void* get = nullptr;
        void* set = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get, 12000, cudaEnableDefault, &found) == cudaSuccess && found == cudaDriverEntryPointSuccess &&
            cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &set, 12000, cudaEnableDefault, &found) == cudaSuccess && found == cudaDriverEntryPointSuccess) {
            c.get = reinterpret_cast<CUresult (*)(CUcontext*)>(get);
            c.set = reinterpret_cast<CUresult (*)(CUcontext)>(set);
        }
        return c;
    }();
    return calls;
}

// For one call: `device` current, then the thread's context as it was (even none). Where the driver's calls were not
// found, the runtime's device is put back instead.
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) {
            throw InputError("cuda_device " + std::to_string(device), "no such GPU (" + std::to_string(count) + " visible)");
        }
        const ContextCalls& calls = context_calls();
        if (calls.get != nullptr && calls.get(&saved_) == CUDA_SUCCESS) saved_context_ = true;
        else if (cudaGetDevice(&saved_device_) != cudaSuccess) saved_device_ = -1;
        // Already current (a context of its own bound to this thread): nothing to set, nor to put back.
        int current = -1;
        const bool bound = !saved_context_ || saved_ != nullptr;
        if (bound && cudaGetDevice(&current) == cudaSuccess && current == device) return;
        const cudaError_t status = cudaSetDevice(device);
        if (status != cudaSuccess) throw std::runtime_error(std::string("cudaSetDevice: ") + cudaGetErrorString(status));
    }
    ~DeviceScope() {
        if (saved_context_) {
            CUcontext now = nullptr;
            if (context_calls().get(&now) != CUDA_SUCCESS || now != saved_) (void)context_calls().set(saved_);
        } else if (saved_device_ >= 0) {
            int now = -1;
            if (cudaGetDevice(&now) != cudaSuccess || now != saved_device_) (void)cudaSetDevice(saved_device_);
        }
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    CUcontext saved_ = nullptr;
    bool saved_context_ = false;
    int saved_device_ = -1;
};

}  // namespace

bool built() { return true; }

DeviceSpec live_device(int device, const Problem& shape, DType dtype, const DeviceTiming& timing) {
    const DeviceScope scope(device);
    return cuda::live_device(shape, dtype, timing);
}

std::string device_name(int device) {
    const DeviceScope scope(device);
    return cuda::current_device_name();
}

std::size_t workspace_bytes(int device, const Schedule& plan) {
    const DeviceScope scope(device);
    return cuda::workspace_bytes(plan);
}

void run(int device, const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, void* stream) {
    const DeviceScope scope(device);
    cuda::run(plan, tensors, workspace, bytes, static_cast<cudaStream_t>(stream));
}

void run_host_lengths(int device, const Schedule& plan, const DecodeTensors& tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens,
                 void* workspace, std::size_t bytes, void* stream) {
    const DeviceScope scope(device);
    cuda::run(plan, tensors, cuda::HostLengths{host_seqlens, host_cu_seqlens}, workspace, bytes, static_cast<cudaStream_t>(stream));
}

void stage_step(int device, const Schedule& plan, const DecodeTensors& tensors, const std::int32_t* host_seqlens, const std::int32_t* host_cu_seqlens,
                void* workspace, std::size_t bytes, void* stream) {
    const DeviceScope scope(device);
    cuda::stage_step(plan, tensors, cuda::HostLengths{host_seqlens, host_cu_seqlens}, workspace, bytes, static_cast<cudaStream_t>(stream));
}

void run_staged(int device, const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, void* stream) {
    const DeviceScope scope(device);
    cuda::run_staged(plan, tensors, workspace, bytes, static_cast<cudaStream_t>(stream));
}

}  // namespace leanattn::capi::gpu

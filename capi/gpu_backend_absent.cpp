// gpu_backend_absent.cpp — the C ABI of a library built without CUDA: CUDA plans are refused by name.
#include "core/input_error.hpp"
#include "gpu_backend.hpp"

namespace leanattn::capi::gpu {

namespace {
[[noreturn]] void refuse() { throw InputError("device cuda", "this leanattn library was built without CUDA (nvcc was not found)"); }
}  // namespace

bool built() { return false; }
DeviceSpec live_device(int, const Problem&, DType, const DeviceTiming&) { refuse(); }
std::string device_name(int) { refuse(); }
std::size_t workspace_bytes(int, const Schedule&) { refuse(); }
void run(int, const Schedule&, const DecodeTensors&, void*, std::size_t, void*) { refuse(); }
void run_host_lengths(int, const Schedule&, const DecodeTensors&, const std::int32_t*, const std::int32_t*, void*, std::size_t, void*) { refuse(); }
void stage_step(int, const Schedule&, const DecodeTensors&, const std::int32_t*, const std::int32_t*, void*, std::size_t, void*) { refuse(); }
void run_staged(int, const Schedule&, const DecodeTensors&, void*, std::size_t, void*) { refuse(); }

}  // namespace leanattn::capi::gpu

// kernels_bf16.cu — the bf16 instantiations of the decode kernels (kernel_set.cuh).
#include "kernel_set.cuh"

namespace leanattn::cuda {

KernelSet kernel_set_bf16(const KernelVariant& variant) { return kernel_set_for<__nv_bfloat16>(variant); }

}  // namespace leanattn::cuda

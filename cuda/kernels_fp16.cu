// kernels_fp16.cu — the fp16 instantiations of the decode kernels (kernel_set.cuh).
#include "kernel_set.cuh"

namespace leanattn::cuda {

KernelSet kernel_set_fp16(const KernelVariant& variant) { return kernel_set_for<__half>(variant); }

}  // namespace leanattn::cuda

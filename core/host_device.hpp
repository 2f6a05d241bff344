// host_device.hpp — the one macro that lets plan-walking code compile for CPU and GPU alike.
//
// core/ never includes CUDA headers. When a .cu file includes the walker, nvcc defines __CUDACC__
// and the same functions become __host__ __device__; everywhere else the macro is empty.
#pragma once

#if defined(__CUDACC__)
#define LEANATTN_HD __host__ __device__
#else
#define LEANATTN_HD
#endif

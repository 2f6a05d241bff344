// lean_decoder.cuh — host API of the decode-attention kernels: one object per plan, launched many times.
//
// LeanDecoder copies the plan's per-request arrays to the device, owns the partials workspace and the
// flags, and launches the fused kernel (plus fixed-split's reduce kernel) on tensors the caller owns.
// Tensors as in decode_params.cuh. Supported: q_len 1, head_dim 64 or 128, group 1, 2, 4 or 8,
// fp16 or bf16; anything else is refused with InputError before a launch.
#pragma once

#include <cstdint>
#include <string>

#include "core/schedule.hpp"

namespace leanattn::cuda {

enum class DType { fp16, bf16 };

struct DecodeTensors {  // device pointers
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    void* o = nullptr;
    float* lse = nullptr;
    const std::int64_t* ctx = nullptr;  // (batch) on the device
    std::int64_t max_ctx = 0;
};

// CTAs of the fused kernel that fit on one SM at once, for this shape (cudaOccupancy…): what a stream-k
// plan's DeviceSpec must say so that every host's peers are co-resident.
int resident_ctas_per_sm(DType dtype, std::int64_t head_dim, std::int64_t group);

// SM count of the current device.
int device_sm_count();

// Throws InputError when the kernels do not cover this problem.
void check_supported(const Problem& problem);

class LeanDecoder {
public:
    LeanDecoder(const Schedule& schedule, DType dtype);
    ~LeanDecoder();
    LeanDecoder(const LeanDecoder&) = delete;
    LeanDecoder& operator=(const LeanDecoder&) = delete;

    // Enqueues one decode on the default stream (1 launch, or 2 for fixed-split with splits > 1).
    void run(const DecodeTensors& tensors);

private:
    Schedule schedule_;
    DType dtype_;
    std::int64_t* request_tiles_ = nullptr;
    std::int64_t* request_offset_ = nullptr;
    float* partials_ = nullptr;
    int* flags_ = nullptr;
    int epoch_ = 0;
};

}  // namespace leanattn::cuda

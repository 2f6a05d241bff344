// kernel_set.hpp — the compile-time variants of the decode kernels, picked at run time. One variant per
// (dtype, head_dim, rows = kernel_rows(query rows of an output tile), traced or not); each has a decode kernel and a
// fixed-split reduce kernel, both taking DecodeParams by value. Host-only header; the instantiations live
// in kernels_fp16.cu and kernels_bf16.cu (kernel_set.cuh), so the two build in parallel.
#pragma once

#include <cstdint>

#include "core/dtype.hpp"

namespace leanattn::cuda {

struct DecodeParams;
struct StepTable;

// The kernels are compiled for 1, 2, 4, 8, 16, 32, 64 and 128 query rows per output tile (group · q_len); a
// problem runs on the smallest that holds its rows, the rest being padding. 0 beyond the largest.
std::int64_t kernel_rows(std::int64_t rows);

struct KernelVariant {
    DType dtype = DType::fp16;
    std::int64_t head_dim = 128;
    std::int64_t rows = 1;
    bool trace = false;
};

struct KernelSet {
    void (*decode)(DecodeParams) = nullptr;
    void (*reduce)(DecodeParams) = nullptr;
    // A host-lengths step's (step_table.hpp): the same kernels reading their segments from the launch; untraced only.
    void (*decode_table)(DecodeParams, StepTable) = nullptr;
    void (*reduce_table)(DecodeParams) = nullptr;
    // The same two decode kernels reading with half their warps (Schedule::narrow_streams, core/schedule.hpp): head
    // dim 128 at 2-16 rows only; null elsewhere.
    void (*decode_narrow)(DecodeParams) = nullptr;
    void (*decode_table_narrow)(DecodeParams, StepTable) = nullptr;
    // A staged step's (decode.hpp: run_staged): the table kernels reading the table from the workspace; untraced sets only.
    void (*decode_staged)(DecodeParams) = nullptr;
    void (*decode_staged_narrow)(DecodeParams) = nullptr;
};

// The decode kernel a plan runs on: the narrow one where the plan asks for narrow streams (Schedule::narrow_streams)
// and the set has one.
inline auto decode_kernel(const KernelSet& set, bool narrow_streams) { return narrow_streams && set.decode_narrow != nullptr ? set.decode_narrow : set.decode; }
inline auto decode_table_kernel(const KernelSet& set, bool narrow_streams) {
    return narrow_streams && set.decode_table_narrow != nullptr ? set.decode_table_narrow : set.decode_table;
}
inline auto decode_staged_kernel(const KernelSet& set, bool narrow_streams) {
    return narrow_streams && set.decode_staged_narrow != nullptr ? set.decode_staged_narrow : set.decode_staged;
}

// Threads per CTA of both kernels, and the decode kernel's dynamic shared memory (bytes).
int decode_threads();
int decode_shared_bytes();

// The kernels of a variant check_supported accepts.
KernelSet kernel_set(const KernelVariant& variant);

// A variant's kernels made ready on the current device: the decode kernel's shared-memory opt-in done, and
// how many of its CTAs fit on one SM (the occupancy calculator's answer). Cached per device and variant,
// so run() pays for this once; later calls cost an array read. Throws std::runtime_error on a CUDA error.
struct ReadyKernels {
    KernelSet set;
    std::int64_t ctas_per_sm = 0;
};
ReadyKernels ready_kernels(const KernelVariant& variant);

// SM count of the current device, cached per device.
std::int64_t current_device_sms();

}  // namespace leanattn::cuda

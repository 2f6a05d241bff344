// cta_trace.cuh — the per-CTA trace of the decode kernels, a compile-time switch: CtaTrace<false> (every
// run() launch) has empty members that compile to nothing; CtaTrace<true> (the traced instantiation, only
// launched by run_traced) has thread 0 stamp %globaltimer at its start, when the live plan is there and when its
// arrays are staged, and at each phase of each segment, and record the SM.
// Records: trace_records.hpp. The marks sit right after the barriers that end a phase for the whole CTA,
// so thread 0's clock reads the CTA's time.
#pragma once

#include <cstdint>

#include "decode_params.cuh"
#include "trace_records.hpp"

namespace leanattn::cuda::detail {

template <bool On>
struct CtaTrace {
    __device__ CtaTrace(const DecodeParams&, std::int64_t) {}
    __device__ void plan_waited() {}
    __device__ void plan_ready() {}
    __device__ void segment_begin() {}
    __device__ void stream_end() {}
    __device__ void wait_begin() {}
    __device__ void wait_end() {}
    __device__ void segment_end() {}
    __device__ void cta_end() {}
};

__device__ inline std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}
__device__ inline std::uint32_t sm_id() {
    std::uint32_t id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

template <>
struct CtaTrace<true> {
    __device__ CtaTrace(const DecodeParams& p, std::int64_t cta)
        : cta_(p.trace.ctas + cta), segments_(p.trace.segments + cta * p.trace.segments_per_cta), capacity_(p.trace.segments_per_cta) {
        if (threadIdx.x == 0) {
            cta_->start_ns = global_ns();
            cta_->sm = sm_id();
        }
    }
    __device__ void plan_waited() { if (threadIdx.x == 0) cta_->plan_wait_ns = global_ns(); }
    __device__ void plan_ready() { if (threadIdx.x == 0) cta_->plan_ready_ns = global_ns(); }
    __device__ void segment_begin() {
        if (!recording()) return;
        TraceSegmentRecord& s = segments_[count_];
        s.stream_begin_ns = global_ns();
        s.wait_begin_ns = s.wait_end_ns = 0;
    }
    __device__ void stream_end() { if (recording()) segments_[count_].stream_end_ns = global_ns(); }
    __device__ void wait_begin() { if (recording()) segments_[count_].wait_begin_ns = global_ns(); }
    __device__ void wait_end() { if (recording()) segments_[count_].wait_end_ns = global_ns(); }
    __device__ void segment_end() {
        if (recording()) segments_[count_].finish_end_ns = global_ns();
        ++count_;
    }
    __device__ void cta_end() {
        if (threadIdx.x != 0) return;
        cta_->end_ns = global_ns();
        cta_->segments = count_;
    }

private:
    __device__ bool recording() const { return threadIdx.x == 0 && count_ < capacity_; }

    TraceCtaRecord* cta_;
    TraceSegmentRecord* segments_;
    std::int64_t capacity_;
    std::uint32_t count_ = 0;
};

}  // namespace leanattn::cuda::detail

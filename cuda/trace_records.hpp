// trace_records.hpp — what the traced decode kernel writes for every CTA (cta_trace.cuh) and the host reads
// back (trace.hpp). Plain data, the same layout on both sides. Times are the GPU's %globaltimer in ns.
//
//   ctas      (grid)                       one TraceCtaRecord per CTA
//   segments  (grid, segments_per_cta)     the CTA's segments in walk order; the first segments_per_cta kept
#pragma once

#include <cstdint>

namespace leanattn::cuda {

struct TraceCtaRecord {
    std::uint64_t start_ns = 0;       // the CTA's first instruction
    std::uint64_t plan_wait_ns = 0;   // the wait for the live-plan prologue over
    std::uint64_t plan_ready_ns = 0;  // the plan's arrays staged in shared memory: the walk can begin
    std::uint64_t end_ns = 0;         // after its last segment
    std::uint32_t sm = 0;        // %smid
    std::uint32_t segments = 0;  // segments it walked (may exceed segments_per_cta: the rest are not recorded)
};

// One segment: streaming [stream_begin, stream_end), then merge/store [stream_end, finish_end), which holds
// the wait for peers [wait_begin, wait_end) when this segment's host waits for them (both 0 otherwise).
struct TraceSegmentRecord {
    std::uint64_t stream_begin_ns = 0;
    std::uint64_t stream_end_ns = 0;
    std::uint64_t wait_begin_ns = 0;
    std::uint64_t wait_end_ns = 0;
    std::uint64_t finish_end_ns = 0;
};

// Device pointers of the trace; all null when a run is not traced.
struct TraceBuffer {
    TraceCtaRecord* ctas = nullptr;
    TraceSegmentRecord* segments = nullptr;
    std::int64_t segments_per_cta = 0;
};

}  // namespace leanattn::cuda

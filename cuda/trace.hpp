// trace.hpp — a per-CTA trace of one decode launch, read back and lined up with the plan it ran.
//
// run_traced launches the traced instantiation of the decode kernel (cta_trace.cuh), which stamps, per CTA,
// its SM and %globaltimer at its start, when its wait for the live plan ends, when the plan's arrays are staged
// and at its end, and, per segment, the start and end of streaming, of the
// wait for peers, and of the merge/store (of a step of run(), or of a host-lengths step). assemble_trace turns the raw records (trace_records.hpp) into
// times in ns from the launch's first CTA start, each segment beside what the plan says of it. The JSON form
// (leanattn cuda bench --trace) is documented in docs/trace.md. fixed-split's reduce launch is not traced.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"
#include "decode.hpp"
#include "step_table.hpp"
#include "trace_records.hpp"

namespace leanattn::cuda {

// run() with the traced kernel: the same checks and launches, plus the records. `trace` holds device
// buffers for plan.grid CTAs and segments_per_cta segments each (trace_segments_per_cta of the live plan).
void run_traced(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                const TraceBuffer& trace);

// A host-lengths step (decode.hpp) with the traced kernel; the step's table is left in `step` for assemble_trace
// (which outputs were merged together). The CTAs' plan marks equal their start: there is nothing to wait for or
// stage. Throws InputError where the step needs more than a launch's table holds (run() would run it as a step of run()).
void run_traced(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, void* workspace, std::size_t workspace_bytes,
                cudaStream_t stream, const TraceBuffer& trace, StepTable& step);

// The most segments any CTA walks in `live` (at least 1): what a trace buffer must hold per CTA.
std::int64_t trace_segments_per_cta(const PlanView& live);

// What a segment does at its end: writes O alone (its output has one contributor), stores a partial for
// someone else to merge, (a stream-k host) waits for its peers, merges their partials and writes O, or (a shared
// merge of a host-lengths step, step_table.hpp) stores its partial, waits for every contributor's and merges its
// share of the output's rows.
enum class SegmentRole { store, partial, reduce, shared };
std::string_view segment_role_name(SegmentRole role);

struct SegmentTimes {
    Segment segment;                 // output, begin, end (LeanTiles local to the output), host, finishing
    std::int64_t batch = 0;
    std::int64_t kv_head = 0;
    std::int64_t contributors = 1;   // CTAs holding the output's LeanTiles, host included
    SegmentRole role = SegmentRole::store;
    std::int64_t stream_begin_ns = 0;
    std::int64_t stream_end_ns = 0;  // = the merge/store's start
    std::int64_t wait_begin_ns = -1; // -1: this segment did not wait
    std::int64_t wait_end_ns = -1;
    std::int64_t finish_end_ns = 0;
};

struct CtaTimes {
    std::int64_t cta = 0;
    std::int64_t sm = 0;
    std::int64_t start_ns = 0;
    std::int64_t plan_wait_ns = 0;   // the wait for the live-plan prologue over
    std::int64_t plan_ready_ns = 0;  // the plan's arrays staged: the walk begins
    std::int64_t end_ns = 0;
    std::vector<SegmentTimes> segments;  // in walk order
};

struct KernelTrace {
    Strategy strategy = Strategy::stream_k;
    std::int64_t grid = 0;
    std::int64_t snap = 0;         // stream-k: the plan's snap (0: the paper's starts); what a replay of the trace needs
    std::int64_t splits = 1;       // fixed-split: splits per output
    std::int64_t total_tiles = 0;  // live LeanTiles
    std::int64_t makespan_ns = 0;  // last CTA end
    std::vector<CtaTimes> ctas;
};

// Lines the records up with the plan's walk. Throws std::runtime_error when a CTA's recorded segment
// count differs from the walk's (the kernel did not run the plan it was given) or a record is incomplete.
// `step`: a host-lengths step's table (its segments must be the walk's), which says which merges were shared.
KernelTrace assemble_trace(const Schedule& plan, const PlanView& live, const std::vector<TraceCtaRecord>& ctas,
                           const std::vector<TraceSegmentRecord>& segments, std::int64_t segments_per_cta, const StepTable* step = nullptr);

}  // namespace leanattn::cuda

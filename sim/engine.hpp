// engine.hpp — plays one launch's CTA programs out on the SMs, event by event.
//
// Dispatch: the device has SMs × CTAs-per-SM slots; slot k sits on SM k mod SMs, so the first wave puts
// CTA g on SM g mod SMs (core's sm_of_cta). CTAs start in grid order; a slot freed by a finishing CTA
// takes the next CTA at once (ties: lowest CTA first).
//
// Streams share bandwidth as processor sharing: rates change only when some SM starts or stops
// streaming, so between events every rate is constant and the engine jumps from event to event. Per
// partition it keeps a virtual clock S with dS/dt = 1 / L (L: the loaded latency of the memory model);
// a CTA among k streaming on its SM has then read (bytes_in_flight / k) · ΔS bytes. Its completion is a
// point on the S axis that does not move when other SMs start or stop (only L, the speed of S, does), so
// only the CTAs on the SM whose k changed are rescheduled: O(log CTAs) per event, never per LeanTile.
#pragma once

#include <cstdint>
#include <vector>

#include "cta_program.hpp"
#include "memory_model.hpp"
#include "sm_timeline.hpp"

namespace leanattn::sim {

// Runs `program` from `start_ns` (when its first CTAs start) and returns when its last CTA finishes.
// Throws std::logic_error if a CTA waits on a flag that can never be set (the caller refuses such plans
// first: make_schedule runs check_coresidency).
// With `ctas`, also appends every CTA's span, in CTA order; with `streams`, every stream phase (of an output).
double run_launch(const LaunchProgram& program, std::int64_t sms, std::int64_t ctas_per_sm, const MemoryModel& memory,
                  SmTimeline& timeline, double start_ns, std::vector<CtaSpan>* ctas = nullptr, std::vector<StreamSpan>* streams = nullptr);

}  // namespace leanattn::sim

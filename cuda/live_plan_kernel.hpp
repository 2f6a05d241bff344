// live_plan_kernel.hpp — run()'s prologue: one CTA that reads cache_seqlens on the device and writes the
// plan's live per-request arrays into the workspace (workspace.hpp), exactly what core's live_view computes
// on the host, with the same functions (tiles_for, live_tokens, fixed_split_chunk, keeps_snap); it also
// clears the peers' flags for the decode kernel that follows in stream order, and writes the rows of requests that
// hold no token (out 0, lse −∞), which no CTA of that kernel visits.
#pragma once

#include <cuda_runtime_api.h>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"
#include "workspace.hpp"

namespace leanattn::cuda {

// Enqueues the prologue on `stream` (no allocation, no synchronisation). `view` is plan.view() as this run
// may use it (run() clears its capacity loads where the GPU cannot hold the grid at once: the snap then stays).
void enqueue_live_plan(const PlanView& view, const Schedule& plan, const DecodeTensors& tensors, void* workspace, const WorkspaceLayout& layout,
                       cudaStream_t stream);

}  // namespace leanattn::cuda

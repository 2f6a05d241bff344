// plan_visits.cuh — the plan walked on the GPU: every CTA of a grid walks its segments with the core's
// walker and counts its visits to each LeanTile (after CUTLASS's stream-K scheduler test).
//
// The proof that the kernel side reads plans exactly as the CPU side does: after one launch every
// count must be 1. Host API only; the kernel lives in plan_visits.cu.
#pragma once

#include <cstdint>
#include <vector>

#include "core/schedule.hpp"

namespace leanattn::cuda {

// Launches one CTA per plan CTA; returns the visit count of every global LeanTile (size total_tiles)
// and, per CTA, the number of segments it walked. Throws std::runtime_error on a CUDA error.
struct PlanVisits {
    std::vector<std::int32_t> tile_visits;
    std::vector<std::int32_t> segments_per_cta;
};
PlanVisits walk_plan_on_device(const Schedule& schedule);

}  // namespace leanattn::cuda

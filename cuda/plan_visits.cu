#include "plan_visits.cuh"

#include <cuda_runtime.h>

#include <stdexcept>

#include "core/walker.hpp"
#include "device_buffer.cuh"

namespace leanattn::cuda {

namespace {

// One thread per CTA is enough: the point is the walk, not the math.
__global__ void count_visits_kernel(PlanView plan, std::int32_t* tile_visits, std::int32_t* segments_per_cta) {
    const std::int64_t cta = blockIdx.x;
    if (threadIdx.x != 0 || cta >= plan.grid) return;
    std::int32_t segments = 0;
    for (CtaWalker w(plan, cta); w.valid(); w.advance()) {
        const Segment& s = w.current();
        const std::int64_t first = plan::output_offset(plan, s.output);
        for (std::int64_t t = s.begin; t < s.end; ++t) atomicAdd(&tile_visits[first + t], 1);
        ++segments;
    }
    segments_per_cta[cta] = segments;
}

}  // namespace

PlanVisits walk_plan_on_device(const Schedule& schedule) {
    const std::size_t batch = schedule.request_tiles.size();
    DeviceBuffer tiles(batch * sizeof(std::int64_t)), offsets((batch + 1) * sizeof(std::int64_t));
    DeviceBuffer visits(static_cast<std::size_t>(schedule.total_tiles) * sizeof(std::int32_t));
    DeviceBuffer segments(static_cast<std::size_t>(schedule.grid) * sizeof(std::int32_t));
    check(cudaMemcpy(tiles.get<std::int64_t>(), schedule.request_tiles.data(), batch * sizeof(std::int64_t), cudaMemcpyHostToDevice), "copy request_tiles");
    check(cudaMemcpy(offsets.get<std::int64_t>(), schedule.request_offset.data(), (batch + 1) * sizeof(std::int64_t), cudaMemcpyHostToDevice), "copy request_offset");
    check(cudaMemset(visits.get<std::int32_t>(), 0, schedule.total_tiles * sizeof(std::int32_t)), "clear visits");
    check(cudaMemset(segments.get<std::int32_t>(), 0xff, schedule.grid * sizeof(std::int32_t)), "poison segment counts");

    PlanView plan = schedule.view();
    plan.request_tiles = tiles.get<std::int64_t>();
    plan.request_offset = offsets.get<std::int64_t>();
    count_visits_kernel<<<static_cast<unsigned>(schedule.grid), 32>>>(plan, visits.get<std::int32_t>(), segments.get<std::int32_t>());
    check(cudaGetLastError(), "launch count_visits_kernel");
    check(cudaDeviceSynchronize(), "run count_visits_kernel");

    PlanVisits out;
    out.tile_visits.resize(schedule.total_tiles);
    out.segments_per_cta.resize(schedule.grid);
    check(cudaMemcpy(out.tile_visits.data(), visits.get<std::int32_t>(), schedule.total_tiles * sizeof(std::int32_t), cudaMemcpyDeviceToHost), "copy visits");
    check(cudaMemcpy(out.segments_per_cta.data(), segments.get<std::int32_t>(), schedule.grid * sizeof(std::int32_t), cudaMemcpyDeviceToHost), "copy segment counts");
    return out;
}

}  // namespace leanattn::cuda

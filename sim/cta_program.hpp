// cta_program.hpp — what each CTA of a launch does, as a short list of phases the engine plays out.
//
// A phase is a fixed-time step (prologue, compute, stores, merges), a stream of bytes read at whatever
// rate the memory model grants at each moment, or a wait for a peer's flag. Phases are built once from
// the plan with the shared walker (one entry per segment, never per LeanTile), so a CTA holding
// thousands of LeanTiles is a handful of phases.
//
// Per segment of t tokens: stream t · head_dim · 2 (K and V) · bytes-per-element, and compute them
// (kernel_model.hpp's compute_ns). A pipelined kernel (compute_overlaps_loads) takes max(stream, compute):
// the stream phase lasts at least the compute, and a CTA whose loads are done early holds no bandwidth while
// it finishes computing. The paper's kernel computes after the stream, a phase of its own.
#pragma once

#include <cstdint>
#include <vector>

#include "core/schedule.hpp"
#include "kernel_model.hpp"

namespace leanattn::sim {

enum class PhaseKind : std::uint8_t { work, stream, wait };

struct Phase {
    PhaseKind kind = PhaseKind::work;
    bool reduction = false;  // exists only because an output was split (partials, flags, merges, reduce kernel)
    bool signals = false;    // finishing it sets this CTA's flag (stream-k: the partial is visible)
    double amount = 0.0;     // work: ns; stream: bytes
    double min_ns = 0.0;     // stream: the phase lasts at least this long (compute the loads overlap) …
    double loss = 0.0;       // … plus this share of the shorter of its stream and that compute
    std::int64_t peer = -1;  // wait: the CTA whose flag is awaited
    std::int64_t output = -1;  // stream: the output tile whose K and V it reads (pictures colour by its request)
};

struct LaunchProgram {
    std::vector<Phase> phases;        // every CTA's phases, CTA by CTA
    std::vector<std::int64_t> first;  // (grid + 1): CTA g's phases are [first[g], first[g + 1])
    std::int64_t grid() const { return static_cast<std::int64_t>(first.size()) - 1; }
};

// The plan's own launch: stream-k (partials, flags and host merges in the same kernel), fixed-split's
// split kernel (every split stores a partial when splits > 1), or no-split.
LaunchProgram main_launch(const Schedule& schedule, const KernelModel& kernel, std::int64_t bytes_per_element);

// A launch whose CTAs of equal programs share one: `programs` holds each distinct program once (its grid() is their
// count) and CTA g runs program program_of[g]. No-split, fixed-split and the reduce kernel hold a few, however many
// CTAs they launch (a program per request length, split, first or later row block, first wave or not); a
// stream-k plan that splits outputs holds one per CTA. What the makespan player reads (makespan.hpp): building
// it costs O(grid) integers and O(programs) phases. simulate() reads LaunchProgram, whose phases also name
// their outputs for the pictures (here, only the first CTA's of each program).
struct SharedLaunch {
    LaunchProgram programs;
    std::vector<std::int32_t> program_of;  // (grid)
    std::int64_t grid() const { return static_cast<std::int64_t>(program_of.size()); }
};

// main_launch and reduce_launch as SharedLaunch, into `out` (its buffers are reused).
void shared_main_launch(const Schedule& schedule, const KernelModel& kernel, std::int64_t bytes_per_element, SharedLaunch& out);
void shared_reduce_launch(const Schedule& schedule, const KernelModel& kernel, SharedLaunch& out);

// Fixed-split's second kernel: the CTAs of each output (one, or one per reduce_values_per_cta of its values) read
// their share of its splits' partials (splits · rows · (d + 2) · 4 bytes in all: float O plus m and l) and store
// the output. Empty when the plan has one launch.
LaunchProgram reduce_launch(const Schedule& schedule, const KernelModel& kernel);

}  // namespace leanattn::sim

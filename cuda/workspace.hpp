// workspace.hpp — how run() lays out the caller's workspace: what the prologue derives from the live
// lengths at every run, the peers' flags and the partials. Host-side geometry (plain C++, tested without a
// GPU); the kernels receive pointers into the sections.
//
// Sections, in this order, each starting on a 256-byte boundary:
//   live            LivePlan: the live LeanTile total, fixed-split's live chunk, stream-k's live snap and strategy
//   request_tiles   (batch)       int64: LeanTiles of each output tile of request b, from cache_seqlens
//   request_offset  (batch + 1)   int64: first global iteration of request b; [batch] = the live total
//   flags           (grid)        int32: set to 1 by a CTA once its partial is stored (stream-k only: the
//                                 hosts wait inside the launch), set to 0 again by the host once it has read it;
//                                 also cleared by the prologue of every run() that may use them (not by a step that
//                                 walks as no-split at the plan's own lengths). A host-lengths step has no
//                                 prologue: it needs them 0 when it starts, as every step leaves them
//   split_counts    (outputs)     int32: fixed-split with several splits, a host-lengths step only: each output's
//                                 splits, written by its first split for the reduce kernel (a step of run()
//                                 reads the live plan instead)
//   partials        (grid, partial_slot_floats) fp32: a CTA's un-scaled O, then m, then l, padded to 16 bytes (plans
//                                 whose outputs can have more than one contributor)
//   step_table      StepTable     a staged step's table (decode.hpp: stage_step copies it in, run_staged's kernels read it)
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"
#include "core/schedule.hpp"

namespace leanattn::cuda {

// Written by the prologue kernel, read by the decode and reduce kernels into their PlanView.
struct LivePlan {
    std::int64_t total_tiles = 0;  // I for the live lengths
    std::int64_t chunk = 0;        // fixed-split: ⌈longest live request's LeanTiles / splits⌉; else the plan's
    std::int64_t snap = 0;         // stream-k: the plan's snap, or 0 where plan::keeps_snap refuses it
    Strategy strategy = Strategy::stream_k;  // the plan's, or no-split for a stream-k step of one output per CTA
};

struct WorkspaceLayout {
    std::size_t live = 0;            // byte offsets of the sections
    std::size_t request_tiles = 0;
    std::size_t request_offset = 0;
    std::size_t flags = 0;
    std::size_t split_counts = 0;
    std::size_t partials = 0;
    std::size_t step_table = 0;
    std::int64_t flag_count = 0;     // int32 flags: the grid when the plan reduces inside the launch, else 0
    std::int64_t split_count_entries = 0;  // int32 split counts: the outputs under fixed-split with several splits, else 0
    std::int64_t partial_floats = 0; // floats of one CTA's partial slot
    std::int64_t partial_slots = 0;  // slots: the grid when an output can have several contributors, else 0
    std::size_t bytes = 0;           // the whole workspace
};

inline constexpr std::size_t workspace_alignment = 256;

// Floats of one partial slot: rows · head_dim accumulators, then rows maxima, then rows sums, rounded up to a
// multiple of 4 so that every slot starts on 16 bytes: the kernels move a thread's 4 consecutive accumulators with
// one 16-byte access (decode_device.cuh's finish_segment). The kernels compute it from their own row count.
LEANATTN_HD constexpr std::int64_t partial_slot_floats(std::int64_t rows, std::int64_t head_dim) { return (rows * head_dim + 2 * rows + 3) / 4 * 4; }

// partial_slot_floats of the problem's slots (rows = the output tile's query rows: group · q_len, at most a tile's).
std::int64_t partial_floats(const Problem& shape);

WorkspaceLayout workspace_layout(const Schedule& plan);

}  // namespace leanattn::cuda

// executor.hpp — the CPU decode API: runs any plan for real on OpenMP threads, each thread playing SMs,
// exactly as the GPU kernel would. CTAs walk their segments with the core's walker, non-host segments
// publish partials and signal a flag (release), hosts wait on their peers' flags (acquire) and reduce in
// plan order. stream-k: one phase (fused reduction). fixed-split: splits, then a reduce pass
// (Flash-Decoding's two kernels). no-split: one phase, no partials.
//
// The same shape as the CUDA API (cuda/decode.hpp), so a caller switches device, not code:
//     std::vector<std::byte> workspace(cpu::workspace_bytes(plan));
//     cpu::run(plan, tensors, workspace.data(), workspace.size());        // every step
// The plan is made once from the context lengths the cache can hold; each run derives the per-request
// arrays from the live cache_seqlens (host memory here). Beyond the workspace, a run allocates only each
// thread's small scratch (a few tiles).
#pragma once

#include <cstddef>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"
#include "core/tensor_checks.hpp"

namespace leanattn::cpu {

// The most threads a run takes: far beyond any useful count (each thread plays SMs), far below what makes
// thread creation fail (libgomp crashes, rather than fails, when it cannot make 100,000).
inline constexpr int max_threads = 1024;

// Bytes of workspace run() needs for `plan`: a word marking it in use, the live per-request arrays, one flag and one
// partial slot per CTA.
std::size_t workspace_bytes(const Schedule& plan);

// Runs one decode step of `plan` on `tensors` (host memory; writes O and, when present, the LSE) with
// `threads` threads (0 = OpenMP's default, at most max_threads). Throws InputError, before writing anything,
// when `threads` is out of range, the tensors do not fit the plan (core/tensor_checks.hpp: every length and block id is
// checked), the workspace is NULL, too small or not aligned to alignof(std::max_align_t), or another run is using it at
// this moment (runs at the same time need a workspace each; one plan may serve them all). An exception inside the
// threads (std::bad_alloc) is rethrown after they stop. Deterministic: the result is bitwise identical for any thread
// count, since every reduction happens in the order the plan fixes.
void run(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t workspace_bytes, int threads = 0);

// run()'s checks of the tensors and the workspace, nothing run: what a call that stages a step checks on the CPU, where
// staging does nothing (`outputs` unused: out and softmax_lse are not looked at), so that code tried on the CPU is
// refused where a GPU's would be.
void check_step(const Schedule& plan, const DecodeTensors& tensors, const void* workspace, std::size_t workspace_bytes, Outputs outputs = Outputs::written);

}  // namespace leanattn::cpu

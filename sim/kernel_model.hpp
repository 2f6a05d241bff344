// kernel_model.hpp — what one decode kernel costs on a GPU, apart from the GPU itself.
//
// The device (core/device_spec.hpp, data/devices/) says what the GPU is: SMs, HBM bandwidth (peak and what a
// copy measures), partitions. A kernel model says how a decode kernel uses it: CTAs per SM, how many bytes a
// CTA keeps in flight and at what latency, and the fixed costs of its steps (a launch, a CTA's set-up, a
// segment, a partial's store, a host's merge, the reduce kernel). The simulator plays a plan with both, so the
// same GPU can be simulated under leanattn's kernel (data/kernels/, fitted by `leanattn calibrate`) or under
// the paper's (`paper_kernel`: the device file's own timing keys, Algorithm 2 as written).
// Every unit is in the field's name (and the JSON key, which is the same): docs/calibration.md.
#pragma once

#include <cstdint>
#include <string>

#include "core/device_spec.hpp"
#include "core/problem.hpp"

namespace leanattn::sim {

// How a host CTA merges the partials of its output's peers.
enum class MergeOrder : std::uint8_t {
    serial,      // Algorithm 2 as written: wait for peer 1, merge it, wait for peer 2, …
    all_at_once,  // leanattn's kernel: wait until every peer's flag is up, then merge them in one pass
    // leanattn's kernel in a host-lengths step: as all_at_once, but an output split over CTAs that hold nothing else
    // is merged by all of them, each a share of its rows (rows rank, rank + contributors, …) once every one has
    // stored its partial, the host too. Other split outputs merge as all_at_once.
    shared
};

struct KernelModel {
    std::string name = "paper";
    std::string description;
    std::int64_t ctas_per_sm = 0;  // 0: the device's (the plan is then the one the device file gives)

    // Memory: an SM keeps bytes_in_flight_per_sm outstanding (its CTAs share them) and reads at that over the
    // loaded latency L = (L0^p + (W/B)^p)^(1/p): L0 = stream_latency_ns, p = latency_knee_exponent, W = the
    // bytes in flight of every streaming SM of its partition, B = its share of the device's copy bandwidth
    // × bandwidth_over_copy (or of the device's peak when bandwidth_over_copy is 0: the paper kernel).
    double bytes_in_flight_per_sm = 65536.0;
    double stream_latency_ns = 260.0;
    double latency_knee_exponent = 1.0;
    double bandwidth_over_copy = 0.0;
    double sm_latency_spread = 0.0;  // SMs' latencies differ by up to this fraction (sim/memory_model.hpp); 0: all equal
    // B falls as SMs idle: while m of a partition's n SMs stream, they draw at most B · (1 − this · (1 − m / n)). Fewer
    // SMs keep fewer requests before the memory controllers, so past the knee the HBM runs below what all SMs draw
    // (on an H100 no-split on 96 of 132 SMs ran 2-5% slower than the same bytes over all of them). 0: B whatever m.
    double idle_sms_bandwidth_loss = 0.0;
    // A plan the kernel reads with half its warps (Schedule::narrow_streams) keeps this fraction of an SM's bytes in
    // flight: alike while the HBM is saturated, it sets the rate of the CTAs that stream alone, as the longest
    // requests of a ragged step do. 1: the same as every plan (files fitted before it, 2026-11-27).
    double narrow_in_flight_fraction = 1.0;
    // A KV head's row blocks after its first (core/problem.hpp) read K and V again, mostly from L2: their bytes count as
    // this fraction of as many from HBM (1: all from HBM, as the paper's kernel, which has no row blocks, would),
    // unless the same CTA read the block before it just before (cta_program.cpp: then in full).
    double reread_fraction = 1.0;
    // How the L2 ages a later row block's reads (0: it does not; the block is read in full only when its own CTA read
    // the block before it just before). The block before's same tokens were read earlier, by the CTA that holds them,
    // and the GPU streamed other bytes meanwhile: about the CTAs streaming at once × the LeanTiles between the two
    // reads (their places in their CTAs' ranges) × a LeanTile's bytes. Once that passes this many MB the read is
    // wholly from HBM; below it the share grows linearly from reread_fraction. Side by side (no-split, fixed-split,
    // stream-k of one output per CTA) the two reads are at the same place: reread_fraction. Stream-k's CTAs over row
    // blocks read a block's tokens at places up to a CTA's range apart.
    double reread_lag_mb = 0.0;

    // Compute: per 1,024 scores (query row × token, rows padded as the kernel pads them) and per million
    // multiply-adds (Q·K and P·V: 2 × padded rows × tokens × head_dim). compute_overlaps_loads: a segment
    // takes max(its stream, its compute) (a pipelined kernel); otherwise the compute follows the stream.
    double compute_ns_per_kscore = 0.0;
    double compute_ns_per_mmac = 0.0;
    bool compute_overlaps_loads = true;
    // Per kernel path (kernel_path below): a CTA's own time per KiB of K and V, overlapped with its loads like
    // the compute: the rate one CTA of that path cannot exceed however idle the HBM (instruction issue, the
    // CUDA-core path's arithmetic). 0: none beyond the compute above.
    static constexpr int path_count = 7;
    double cta_ns_per_kb_by_path[path_count] = {0, 0, 0, 0, 0, 0, 0};
    double compute_overlap_loss = 0.0;  // of the shorter of a segment's stream and compute, the share not hidden
    // The compute of a segment's last tokens, which follows its stream whatever the overlap: once the last blocks
    // have landed, the pipeline's few blocks in flight are computed one after another with nothing left to load
    // (tokens; min(this, the segment's tokens) are charged at compute_ns; 0: none, as the paper's kernel).
    double compute_drain_tokens = 0.0;
    double tile_compute_ns = 0.0;  // when the compute follows the loads (the paper's kernel): per LeanTile per 16 rows
    // Query rows the tensor-core path computes at least (its softmax works on them: leanattn's kernel keeps 8 rows
    // per m16 tile up to 8 real rows); one row at head dims 64/128/256 runs on CUDA cores.
    std::int64_t tensor_core_rows_min = 16;

    double launch_ns = 2000.0;          // from the step's start to its first CTA (what follows the last CTA is fitted into it)
    double cta_setup_ns = 600.0;        // a CTA's start to its first load (the walker, Q)
    double plan_wait_ns = 0.0;          // a CTA of the first wave also waits this long (the live plan made on the GPU)
    double stream_k_walk_ns = 0.0;      // a stream-k CTA's extra set-up: finding its range in a plan that splits outputs
    double segment_ns = 0.0;            // each further segment of a CTA: Q again, the walker's next step
    // Each segment's stream starts with an empty pipeline: it is charged this many windows of
    // bytes_in_flight_per_sm more than its bytes, i.e. that many round trips at the loaded latency of the moment.
    double pipeline_fills_per_segment = 0.0;
    double partial_store_ns = 400.0;    // storing a partial (O, m, l), its fence and flag
    double partial_store_ns_per_kb = 0.0;
    double output_store_ns = 150.0;     // storing a finished output tile (O and its LSE)
    MergeOrder merge = MergeOrder::serial;
    double merge_ns = 200.0;            // all_at_once, shared: flags acquired and the merge set up; serial: per peer, its flag observed
    double merge_ns_per_partial = 300.0;  // per peer merged
    double merge_ns_per_kb = 0.0;       // per KiB of the peers' partials read
    double reduce_launch_ns = 2000.0;   // fixed-split: from the split kernel's end to the reduce kernel's CTAs
    double reduce_cta_ns = 600.0;       // fixed-split: a reduce CTA's start, before it reads the partials (then it stores the output)
    double reduce_ns_per_kb = 0.0;      // fixed-split: a reduce CTA's merge per KiB of the partials it reads (beside reading them)
    // fixed-split: the reduce kernel's CTAs take this many of an output's rows × head_dim values each, so an output has
    // ⌈values / this⌉ CTAs, each reading its share of every split's partial (kernel v20: 256, a thread per value);
    // 0: one CTA per output reads them all (the paper's kernel, and leanattn's before v20). Not fitted: the kernel's shape.
    std::int64_t reduce_values_per_cta = 0;

    bool uses_copy_bandwidth() const { return bandwidth_over_copy > 0.0; }
    bool operator==(const KernelModel&) const = default;
};

// The paper's kernel on `device`, from the device file's timing keys: the simulator before kernel models
// existed, kept exactly (serial merges, compute after the loads, one CTA start-up per CTA).
KernelModel paper_kernel(const DeviceSpec& device);

// The HBM bandwidth (GB/s = bytes/ns) the memory law approaches for this kernel on this device. Throws
// InputError when the kernel asks for the device's copy bandwidth and the device file has none.
double kernel_bandwidth_gb_per_s(const KernelModel& kernel, const DeviceSpec& device);

// `device` with the kernel's CTAs per SM (the plan a kernel runs depends on how many of its CTAs fit).
DeviceSpec device_for_kernel(const DeviceSpec& device, const KernelModel& kernel);

// Query rows the kernel computes for a tile of `rows` real rows at `head_dim`: one on the CUDA-core path,
// otherwise the next power of two, at least tensor_core_rows_min.
std::int64_t padded_rows(const KernelModel& kernel, std::int64_t rows, std::int64_t head_dim);

// The kernel paths of leanattn's decode kernel: a head dim, and for 64/128/256 whether one query row runs
// on CUDA cores (the `_1row` paths). Their names are the kernel file's keys under "cta_ns_per_kb_by_path".
inline constexpr const char* kernel_path_names[KernelModel::path_count] = {"d64", "d64_1row", "d96", "d128", "d128_1row", "d256", "d256_1row"};
// The path index of `problem` (−1 for a head dim the kernel has no path for).
int kernel_path(const Problem& problem);
// The path whose per-KiB cost `problem` is charged: its own, or for a head dim the kernel has no path for (a CPU plan
// weighed under a GPU kernel's model, a what-if in `simulate`) the next larger head dim's (d 100 is costed as d 128,
// one-row paths alike; beyond 256, as 256), so that no head dim is predicted free of that cost or faster than a larger
// one for want of a path.
int costed_path(const Problem& problem);
// A CTA's own time (compute and the path's per-KiB cost, overlapped with its loads) for `tokens` tokens of
// one output tile of `problem` whose K and V elements weigh `bytes_per_element`, in ns.
double compute_ns(const KernelModel& kernel, const Problem& problem, double tokens, std::int64_t bytes_per_element);
// The same for many token counts of one problem, its rows and path worked out once.
class ComputeCost {
public:
    ComputeCost(const KernelModel& kernel, const Problem& problem, std::int64_t bytes_per_element);
    double ns(double tokens) const;

private:
    const KernelModel& kernel_;
    double rows_, head_dim_, token_bytes_;
    int path_;
};

// Bytes of one partial of `problem`'s output tile: rows × (head_dim + 2) floats (O, m, l).
double partial_bytes(const Problem& problem);

// Throws InputError unless K and V elements weigh 1, 2 or 4 bytes (what a simulated plan may read).
void check_bytes_per_element(std::int64_t bytes_per_element);

// Throws InputError naming the field whose value is out of range (negative, not finite, zero where divided by).
void check_kernel_model(const KernelModel& kernel);

}  // namespace leanattn::sim

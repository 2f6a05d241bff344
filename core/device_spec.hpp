// device_spec.hpp — what the planner and the simulator know of a GPU (data/devices/*.json).
//
// core/ never queries a GPU: SM count and CTAs per SM arrive as a value (a file, or a query made in
// cuda/), so every plan is testable without one. The timing fields are the simulator's model
// parameters (below).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace leanattn {

// The simulator's model parameters (sim/, docs/simulator.md). Every unit is in the name; each key is
// documented, with its value's source, in data/devices/README.md. Defaults are the H100 SXM's.
//
// Memory: an SM keeps `bytes_in_flight_per_sm` outstanding; by Little's law it reads at
// bytes_in_flight / loaded latency, where the loaded latency grows with the bytes all streaming SMs of
// its HBM partition keep in flight: L = (L0^p + (W / B)^p)^(1/p), L0 = mem_latency_ns, W = those bytes,
// B = hbm_bandwidth_gb_per_s / hbm_partitions, p = latency_knee_exponent. p = 1: a queue behind a pipe
// (the HBM approaches B smoothly); p → ∞: min(per-SM cap, fair share of B), a hard knee.
struct DeviceTiming {
    double hbm_bandwidth_gb_per_s = 3350.0;   // peak HBM read bandwidth of the whole device (GB/s = bytes/ns)
    std::int64_t hbm_partitions = 1;          // memories with their own bandwidth (8 for 8 GPUs); SMs split evenly
    double mem_latency_ns = 260.0;            // unloaded DRAM latency seen by one SM
    double bytes_in_flight_per_sm = 65536.0;  // bytes one SM keeps in flight (its CTAs share them)
    double latency_knee_exponent = 1.0;       // p above (dimensionless, ≥ 1)
    double tile_compute_ns = 40.0;            // per LeanTile per 16 query rows: compute the loads do not hide
    double cta_startup_ns = 600.0;            // a CTA's prologue: scheduled, Q loaded, accumulators set
    double partial_store_ns = 400.0;          // store un-scaled O, m, l + fence (+ flag under stream-k)
    double output_store_ns = 150.0;           // store a finished output tile
    double flag_wait_ns = 200.0;              // a host observing a peer's flag once it is set (L2 round trip)
    double reduce_per_partial_ns = 300.0;     // a host loading and merging one peer's partial
    double launch_overhead_ns = 2000.0;       // from one launch (or the previous kernel's end) to its first CTA
    // A KV head's later row block (core/problem.hpp) read by another CTA than the block before it, side by side
    // with it: this share of its K and V bytes comes from HBM, the rest from the L2 (1: all from HBM). A block a
    // CTA reads right after the block before it comes from HBM in full: the L2 has cycled in between.
    double row_block_reread = 0.35;

    // Field by field (defaulted in device_spec.cpp: the CUDA sources that include this header are C++17).
    friend bool operator==(const DeviceTiming&, const DeviceTiming&);
};

struct DeviceSpec {
    std::string name = "h100-sxm";
    std::string description;
    std::int64_t sms = 132;
    std::int64_t ctas_per_sm = 2;
    // What a device-to-device copy measures (bytes read + written / time), GB/s; 0 when not known. Kernel
    // models fitted on one GPU scale it to predict another (sim/kernel_model.hpp).
    double copy_bandwidth_gb_per_s = 0.0;
    // The kernel model (data/kernels) of leanattn's kernel on this GPU, fitted or transferred; `--strategy auto`
    // predicts with it. Empty: none (auto then weighs plans under the paper's kernel and the timing below).
    std::string kernel_model;
    // The kernel model of its host-lengths steps (the host passes every CTA's segments in the launch: no prologue
    // kernel, no walk on the GPU), which cost less per step; auto weighs a plan made for such steps with it.
    // Empty: kernel_model serves both kinds of step.
    std::string kernel_model_host_lengths;
    // The GPUs this file describes: each a piece of the name CUDA reports for one (cudaDeviceProp::name, e.g.
    // "H200" in "NVIDIA H200"). A plan made on a GPU without a device named reads the file that names it.
    std::vector<std::string> cuda_names;
    DeviceTiming timing;

    // CTAs that can be resident at once: a host may only wait on CTAs within this many.
    std::int64_t resident_ctas() const { return sms * ctas_per_sm; }
    friend bool operator==(const DeviceSpec&, const DeviceSpec&);  // field by field (device_spec.cpp)
};

// What a device may claim, far beyond any GPU yet far inside what the planner's and the simulator's
// arithmetic stays exact for (sms × ctas_per_sm ≤ 2^26 CTAs; times stay finite and ordered).
inline constexpr std::int64_t max_device_sms = 65536;
inline constexpr std::int64_t max_ctas_per_sm = 1024;

// Throws InputError naming the parameter (sms, ctas_per_sm, or the timing field's data-file key, such as
// hbm_bandwidth_gb_per_s) whose value is out of range: not finite, zero where the model divides by it, or
// beyond the limits above and data/devices/README.md's ranges.
void check_device(const DeviceSpec& device);

}  // namespace leanattn

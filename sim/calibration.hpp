// calibration.hpp — a kernel model fitted to measured decode times, and how well a model predicts them.
//
// A measured run is one (problem, strategy) timed on a GPU (`leanattn cuda bench`: median of CUDA-graph
// replays after an L2 flush). Its plan is remade here with the kernel's CTAs per SM on the device file of
// that GPU, so the simulator plays the very plan the kernel ran; `waves` says whether it plays it in the waves the
// GPU ran it in (waves exact). A stream-k run is remade at the grid it ran: the planner's rule may choose another
// grid today than when the run was measured.
//
// The fit (Levenberg–Marquardt on log(predicted / measured), parameters in log space, Jacobian by forward
// differences, runs simulated on every core) changes only the kernel model's fields named in `parameters`;
// the rest keep `start`'s values. docs/calibration.md explains the model and what each field stands for.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "kernel_model.hpp"

namespace leanattn::sim {

struct MeasuredRun {
    std::string label;                   // what identifies the shape (its command-line flags)
    Problem problem;
    std::int64_t bytes_per_element = 2;  // K and V element size
    Strategy strategy = Strategy::stream_k;
    std::int64_t grid = 0;               // the grid the GPU ran
    double measured_us = 0.0;
    double noise = 0.0;                  // run-to-run spread, relative (0 when measured once)
    std::int64_t splits = 0;             // fixed-split: the split count the GPU ran (0: not recorded, the planner's own)
    std::int64_t snap = -1;              // stream-k: the snap the GPU ran (−1: not recorded, the rule's own at that grid)
    bool narrow_streams = false;         // the kernel read it with half its warps (not recorded: kernels before v31 never did)
    std::int64_t gpu_slots = 0;          // CTAs the GPU held at once for the kernel that ran: its SMs × the CTAs per SM its
                                         // occupancy allowed (the record's "gpu"); 0: not recorded
    std::int64_t record = 0;             // which record of its sweep it came from: a problem's runs share it, so a shape
                                         // measured twice in a row (two records of equal flags) stays two problems
};

// How a run is planned again for its replay: at the grid, snap and split count it ran (what it recorded).
PlanOptions replay_options(const MeasuredRun& run);

// Whether a run's replay plays its main launch in the waves the GPU ran it in: the remade plan has the GPU's grid, and
// the simulated device holds as many CTAs at once (its SMs × the kernel model's CTAs per SM) as the GPU did
// (MeasuredRun::gpu_slots), or the grid fits at once in both. It fails where the model's CTAs per SM or the device
// file's SMs are not what the kernel got on the GPU, on every plan of more CTAs than the fewer slots.
enum class Waves { exact, differ, not_recorded /* the grid is the GPU's; the record gives no occupancy */ };
Waves replay_waves(const MeasuredRun& run, const Schedule& remade);

// The runs' plans on `device` under `kernel`'s CTAs per SM, made once: a fit replays them many times.
struct PlannedRuns {
    std::vector<MeasuredRun> runs;
    std::vector<Schedule> plans;
    std::vector<Waves> waves;  // replay_waves of each
};
PlannedRuns plan_runs(const std::vector<MeasuredRun>& runs, const DeviceSpec& device, const KernelModel& kernel);

// Simulated time of every run, in µs (its makespan), run on up to `threads` threads (0: every core).
std::vector<double> predict_us(const PlannedRuns& planned, const KernelModel& kernel, unsigned threads = 0);

// One field of the kernel model the fit may move (positive: it is fitted in log space).
struct FitParameter {
    std::string name;
    std::function<double*(KernelModel&)> field;  // where the value lives
    double lo = 1e-3, hi = 1e9;      // the fit keeps it inside
};
// Every field a fit of leanattn's kernel moves by default: the costs, the memory law, and the bytes in
// flight of each kernel path that `planned` holds runs of; compute_drain_tokens too where `start` has one.
std::vector<FitParameter> default_fit_parameters(const PlannedRuns& planned, const KernelModel& start = {});

struct FitReport {
    KernelModel kernel;
    int iterations = 0;
    double rms_log_error = 0.0;  // the rms of log(predicted / measured) at the end, plain (what it says)
    double loss = 0.0;           // sqrt(mean(ρ(log(predicted / measured)))) at the end: ρ is the robust loss the fit lowers
};

// `progress(iteration, rms)` is called after each iteration (may be empty). `loss_scale`: the scale of the robust
// loss on log(predicted / measured) (Cauchy's; 0: plain least squares, which weighs the worst runs most).
constexpr double default_loss_scale = 0.1;
FitReport fit_kernel(const PlannedRuns& planned, const KernelModel& start, const std::vector<FitParameter>& parameters, int max_iterations = 40,
                     const std::function<void(int, double)>& progress = {}, double loss_scale = default_loss_scale);

// Of runs [begin, end) (one problem's strategies), the one predicted fastest; of those within 0.1% of the
// fastest, the simplest (no-split, then fixed-split, then stream-k: fewer partials and merges).
std::size_t fastest_run(const std::vector<double>& predicted_us, const std::vector<MeasuredRun>& runs, std::size_t begin, std::size_t end);

// |predicted − measured| / measured over runs: median, 95th percentile, worst.
struct ErrorSummary {
    std::size_t runs = 0;
    double median = 0.0, p95 = 0.0, worst = 0.0;
    double median_signed = 0.0;  // median of (predicted − measured) / measured: > 0 pessimistic
};
ErrorSummary summarize_errors(const std::vector<double>& predicted_us, const std::vector<MeasuredRun>& runs, const std::vector<bool>& include = {});

}  // namespace leanattn::sim

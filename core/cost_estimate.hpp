// cost_estimate.hpp — what a call will allocate and how much work it will do, known from its inputs alone.
//
// Every front end (the command line, the C ABI and through it Python) asks for the estimate of what it is
// about to do and refuses it (check_cost) when it exceeds the limits, before allocating anything: nothing a
// user types can exhaust the machine. Pure arithmetic on the problem's sizes, saturating at 2^63 − 1, so an
// absurd problem costs "too much", never a wrapped small number. The constants are upper estimates measured
// on this code's data structures (docs/reliability.md has the measurements).
//
// Units: bytes are peak bytes allocated; work is in elementary steps of about a nanosecond of one core each,
// so a work of 1e9 is about a second.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device_spec.hpp"
#include "input_error.hpp"
#include "problem.hpp"
#include "schedule.hpp"
#include "tensor_layout.hpp"

namespace leanattn {

// One part of a cost and the parameters it grows with (named in a refusal).
struct CostTerm {
    std::string what;  // "the plan's CTAs", "K and V", …
    std::int64_t bytes = 0;
    std::int64_t work = 0;
    std::vector<NamedValue> blame;
};

// A sum of terms; the largest term by bytes and by work are kept to explain a refusal.
struct Cost {
    std::int64_t bytes = 0;
    std::int64_t work = 0;
    CostTerm most_bytes;
    CostTerm most_work;

    // Held at the same time: bytes and work add.
    Cost& add(const CostTerm& term);
    Cost& add(const Cost& other);
    // Done one after another, each freeing its memory: work adds, bytes take the larger.
    Cost& then(const Cost& other);
};

struct CostLimits {
    std::int64_t max_memory_bytes = 0;
    std::int64_t max_work = 0;
    std::string memory_source;  // where the memory limit comes from and how to change it, for the message
    std::string work_source;
};

// Throws InputError naming the parameters of the largest term when `cost` exceeds a limit.
void check_cost(const Cost& cost, const CostLimits& limits);

// A plan's sizes, from the problem alone (upper bounds where the aligned rule may choose less). Runs
// check_problem and check_device first, so it throws what make_schedule would for a malformed input.
struct PlanSize {
    std::int64_t outputs = 0;     // batch × kv_heads
    std::int64_t lean_tiles = 0;  // the iteration space
    std::int64_t longest = 0;     // LeanTiles of the longest request
    std::int64_t ctas = 0;        // the grid
    std::int64_t segments = 0;    // segments of all CTAs together
    std::int64_t splits = 1;      // fixed-split
};
PlanSize plan_size(const Problem& problem, const DeviceSpec& device, const PlanOptions& options);

// The per-request arrays of a problem of `batch` requests (ctx, LeanTile counts, offsets): what exists before
// anything else, so a front end checks it before it builds the ctx list.
Cost request_list_cost(std::int64_t batch);

// make_schedule, tabulate and validate_schedule of one strategy.
Cost plan_cost(const Problem& problem, const DeviceSpec& device, const PlanOptions& options);

// What a plan's report holds in memory while it is written: text (a line per CTA), JSON (an object per CTA,
// segment and output), or a picture (SVG or HTML: elements per CTA, segment, output and SM row).
enum class ReportKind { text, json, picture };
Cost plan_report_cost(const Problem& problem, const DeviceSpec& device, const PlanOptions& options, ReportKind kind);

// A plan and its report: what `leanattn schedule` and leanattn_schedule_json do.
Cost schedule_report_cost(const Problem& problem, const DeviceSpec& device, const PlanOptions& options, ReportKind kind);

// The simulator's fixed-split reduce launch has at most this many CTAs per output (a kernel model's
// reduce_values_per_cta can ask for more only on tiles larger than leanattn's kernel takes: 128 rows × 256
// dims = 128 CTAs of 256 values), so its size, which simulation_cost bounds, does not grow with the head dim.
inline constexpr std::int64_t max_reduce_ctas_per_output = 128;

// One strategy planned and simulated (sim/), with its per-SM timeline when it is to be drawn.
Cost simulation_cost(const Problem& problem, const DeviceSpec& device, const PlanOptions& options, bool timeline);

// Each strategy planned and simulated in turn, and the report (pictures keep every strategy's timeline):
// what `leanattn simulate` and leanattn_simulate_json do.
Cost simulation_report_cost(const Problem& problem, const DeviceSpec& device, const PlanOptions& options,
                            const std::vector<Strategy>& strategies, bool pictures);

// Host tensors of one decode step (q, o, lse, K and V in the layout) and the float64 reference of it.
Cost host_tensors_cost(const Problem& problem, std::int64_t dtype_bytes, CacheLayout layout, std::int64_t block_size);

// The arithmetic of `runs` decode steps over the problem, executed or simulated by the float64 reference:
// about 4 flops per (query row, token, head-dim element), no memory.
Cost decode_work(const Problem& problem, std::int64_t runs);

// The workspace the CPU executor needs for a plan of these sizes (one partial slot per CTA).
Cost cpu_workspace_cost(const Problem& problem, const PlanSize& size);

// "12.0 GB", "512 MB", "900 bytes": sizes as a person reads them.
std::string human_bytes(std::int64_t bytes);

}  // namespace leanattn

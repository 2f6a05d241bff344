// decode.cu — the API of decode.hpp (and trace.hpp's run_traced): checks, the workspace, the launches.
#include "decode.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/input_error.hpp"
#include "core/tensor_checks.hpp"
#include "decode_params.cuh"
#include "device_buffer.cuh"
#include "kernel_set.hpp"
#include "live_plan_kernel.hpp"
#include "step_table.hpp"
#include "run_checks.hpp"
#include "split_reduce.cuh"
#include "trace.hpp"
#include "workspace.hpp"

namespace leanattn::cuda {

namespace {

// Launches `kernel` (with `args`), allowed to overlap the tail of the kernel ahead of it in the stream when
// `after_kernel_ahead` (programmatic dependent launch, sm_90 and later; the kernel waits for it before reading
// what it wrote: decode_params.cuh). Stream capture turns the attribute into a programmatic edge of the graph.
// Without it the launch waits for everything before it in the stream, as a plain launch does.
// LEANATTN_PDL=0 in the environment launches every kernel plainly: for measuring what the overlap buys.
bool programmatic_launch_allowed() {
    static const bool allowed = [] {
        const char* value = std::getenv("LEANATTN_PDL");
        return value == nullptr || std::string(value) != "0";
    }();
    return allowed;
}

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), unsigned grid, int shared_bytes, cudaStream_t stream, bool after_kernel_ahead, const Args&... args) {
    int device = 0, major = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
    cudaLaunchAttribute overlap{};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(static_cast<unsigned>(decode_threads()));
    config.dynamicSmemBytes = static_cast<std::size_t>(shared_bytes);
    config.stream = stream;
    config.attrs = &overlap;
    config.numAttrs = after_kernel_ahead && major >= 9 && programmatic_launch_allowed() ? 1 : 0;
    check(cudaLaunchKernelEx(&config, kernel, args...), "launch");
}

// fixed-split's reduce kernel: split_reduce.cuh's CTAs per output, for every output (0 for a plan of one launch).
std::int64_t reduce_grid(const Schedule& plan) {
    const Problem& shape = plan.problem;
    return plan.launches > 1 ? shape.outputs() * reduce_value_blocks(shape.block_rows(), shape.head_dim) : 0;
}

// A one-row tile of several new tokens (tile_rows 1, q_len > 1) runs on the two-row kernel, its second row padding
// (Problem::kernel_tile_rows says why).
KernelVariant variant_of(const Problem& shape, DType dtype, bool trace) { return {dtype, shape.head_dim, kernel_rows(shape.kernel_tile_rows()), trace}; }

// What both kinds of step check before they enqueue anything (an InputError leaves the stream untouched), and
// the kernels they launch.
ReadyKernels checked_kernels(const Schedule& plan, const DecodeTensors& t, void* workspace, std::size_t bytes, bool trace,
                             Outputs outputs = Outputs::written) {
    const Problem& shape = plan.problem;
    check_supported(shape, t.dtype);
    check_alignment(t, outputs);  // first: a pointer moved off its alignment may also reach into a neighbour (overlap, below)
    check_decode_tensors(shape, t, /*host_readable=*/false, outputs);
    check_workspace(plan, workspace, bytes);
    // Staging writes the workspace too (the step's table), so it is kept off the inputs then as well.
    check_workspace_apart(shape, t, workspace, workspace_bytes(plan), /*host_readable=*/false, outputs);
    if (plan.grid > INT_MAX || reduce_grid(plan) > INT_MAX) throw InputError("plan", "its grid exceeds the 2^31 − 1 CTAs of one launch");
    const ReadyKernels kernels = ready_kernels(variant_of(shape, t.dtype, trace));
    check_residency(plan, t.kv, current_device_sms(), kernels.ctas_per_sm);
    return kernels;
}

// The launches' parameters; `view`'s arrays are replaced by the workspace's.
DecodeParams decode_params(const Schedule& plan, const PlanView& view, const DecodeTensors& t, void* workspace, const TraceBuffer& trace) {
    const Problem& shape = plan.problem;
    const WorkspaceLayout w = workspace_layout(plan);
    auto* base = static_cast<unsigned char*>(workspace);
    DecodeParams p;
    p.plan = view;
    p.plan.request_tiles = reinterpret_cast<const std::int64_t*>(base + w.request_tiles);
    p.plan.request_offset = reinterpret_cast<const std::int64_t*>(base + w.request_offset);
    p.live = reinterpret_cast<const LivePlan*>(base + w.live);
    p.tensors = t;
    p.tile = shape.tile;
    p.group = static_cast<int>(shape.group());
    p.q_len = static_cast<int>(shape.q_len);
    p.rows = static_cast<int>(shape.block_rows());
    p.row_blocks = static_cast<int>(shape.row_blocks());
    p.q_len_reciprocal = static_cast<int>((65536 + shape.q_len - 1) / shape.q_len);
    const double scale = t.softmax_scale != 0.0f ? static_cast<double>(t.softmax_scale) : 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
    p.scale_log2 = static_cast<float>(scale * 1.4426950408889634);
    p.partials = reinterpret_cast<float*>(base + w.partials);
    p.flags = reinterpret_cast<std::int32_t*>(base + w.flags);
    p.split_counts = w.split_count_entries > 0 ? reinterpret_cast<std::int32_t*>(base + w.split_counts) : nullptr;
    p.fused = plan.fused_reduction();
    p.trace = trace;
    return p;
}

// Whether this GPU holds the plan's grid at once: else a live step keeps the plan's snap (core/live_plan.hpp).
bool holds_grid(const Schedule& plan, const ReadyKernels& kernels) { return plan.grid <= current_device_sms() * kernels.ctas_per_sm; }

// A step of run(), its checks passed: the prologue, the decode kernel and fixed-split's reduce.
void enqueue_decode(const Schedule& plan, const DecodeTensors& t, const ReadyKernels& kernels, void* workspace, cudaStream_t stream, const TraceBuffer& trace) {
    PlanView view = plan.view();
    // A live step may run the paper's plan instead of a snapped one only if this GPU holds the grid at once.
    if (!holds_grid(plan, kernels)) view.capacity_max_load = view.capacity_ideal_load = 0;
    const DecodeParams p = decode_params(plan, view, t, workspace, trace);

    enqueue_live_plan(view, plan, t, workspace, workspace_layout(plan), stream);
    launch(decode_kernel(kernels.set, plan.narrow_streams), static_cast<unsigned>(plan.grid), decode_shared_bytes(), stream, true, p);
    if (plan.launches > 1) launch(kernels.set.reduce, static_cast<unsigned>(reduce_grid(plan)), 0, stream, true, p);
}

// Does nothing and is never launched: whether this build holds code the current GPU runs (cudaFuncGetAttributes).
__global__ void code_probe() {}

// "13.0" from CUDA's 13000.
std::string cuda_version_text(int version) { return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10); }

}  // namespace

bool device_available(std::string* why) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count > 0) {
        cudaFuncAttributes attributes{};
        const cudaError_t code = cudaFuncGetAttributes(&attributes, code_probe);
        if (code == cudaSuccess) return true;
        (void)cudaGetLastError();
        if (why == nullptr) return false;
        int device = 0;
        cudaDeviceProp prop{};
        const bool named = cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess;
        *why = code != cudaErrorNoKernelImageForDevice || !named
                   ? std::string(cudaGetErrorString(code))
                   : std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                         ") runs none of this build's kernels, built for CUDA architectures " LEANATTN_CUDA_ARCHITECTURES;
        return false;
    }
    if (why == nullptr) return false;
    // Without a driver the runtime reports an "insufficient" one: say which of the two it is.
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    if (driver == 0) *why = "no NVIDIA driver is loaded on this machine";
    else if (status == cudaErrorInsufficientDriver) *why = "the NVIDIA driver (CUDA " + cuda_version_text(driver) + ") is older than the CUDA runtime leanattn was built with (" + cuda_version_text(runtime) + ")";
    else if (status == cudaSuccess || status == cudaErrorNoDevice) *why = "no CUDA GPU found";
    else *why = cudaGetErrorString(status);
    return false;
}

DeviceSpec live_device(const Problem& shape, DType dtype, const DeviceTiming& timing) {
    check_supported(shape, dtype);
    DeviceSpec d;
    d.name = current_device_name();
    d.description = "the current GPU; CTAs per SM: occupancy of the decode kernel for this shape";
    d.sms = current_device_sms();
    d.ctas_per_sm = ready_kernels(variant_of(shape, dtype, false)).ctas_per_sm;
    d.timing = timing;
    if (d.ctas_per_sm < 1) {
        throw InputError(d.name, "cannot hold one CTA of the decode kernel (" + std::to_string(decode_shared_bytes() / 1024) + " KB of shared memory)");
    }
    return d;
}

std::string current_device_name() {
    if (std::string why; !device_available(&why)) throw std::runtime_error("no usable CUDA device: " + why);
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "device properties");
    return prop.name;
}

std::size_t workspace_bytes(const Schedule& plan) { return workspace_layout(plan).bytes; }

void run(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, cudaStream_t stream) {
    enqueue_decode(plan, tensors, checked_kernels(plan, tensors, workspace, bytes, false), workspace, stream, TraceBuffer{});
}

namespace {

// A host-lengths step's launches, its lengths checked and its table made into `step`; false (nothing launched) where
// the step needs more CTAs or segments than a launch's table holds.
// The cache as the host walks it at `lengths` (make_step_table): tensors::live_tokens reads its capacity, or a ragged
// cache's cu_seqlens, which must then be in host memory too. `step` names the kind of step in the errors.
KvCacheView host_kv(const DecodeTensors& tensors, const HostLengths& lengths, const std::string& step) {
    if (lengths.seqlens == nullptr) throw InputError("host seqlens", "is missing (this step's lengths in host memory)");
    KvCacheView kv = tensors.kv;
    if (kv.layout == KvLayout::ragged) {
        if (lengths.cu_seqlens == nullptr) throw InputError("host cu_seqlens", "a ragged cache's " + step + " needs its cu_seqlens in host memory");
        kv.cu_seqlens = lengths.cu_seqlens;
    }
    return kv;
}

bool enqueue_table_step(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, const ReadyKernels& kernels, void* workspace,
                        cudaStream_t stream, const TraceBuffer& trace, StepTable& step) {
    if (!make_step_table(plan, host_kv(tensors, lengths, "host-lengths step"), lengths.seqlens, step, !holds_grid(plan, kernels))) return false;
    const DecodeParams p = decode_params(plan, plan.view(), tensors, workspace, trace);
    launch(decode_table_kernel(kernels.set, plan.narrow_streams), static_cast<unsigned>(plan.grid), decode_shared_bytes(), stream, false, p, step);
    if (plan.launches > 1) launch(kernels.set.reduce_table, static_cast<unsigned>(reduce_grid(plan)), 0, stream, true, p);
    return true;
}

void check_trace_buffer(const TraceBuffer& trace) {
    if (trace.ctas == nullptr || trace.segments == nullptr || trace.segments_per_cta < 1) {
        throw InputError("trace", "needs device buffers for every CTA and at least one segment per CTA");
    }
}

}  // namespace

void run(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, void* workspace, std::size_t bytes, cudaStream_t stream) {
    const ReadyKernels kernels = checked_kernels(plan, tensors, workspace, bytes, false);
    static thread_local StepTable step;  // ~11 KB, copied into the launch: kept off the stack
    if (!enqueue_table_step(plan, tensors, lengths, kernels, workspace, stream, TraceBuffer{}, step)) {
        enqueue_decode(plan, tensors, kernels, workspace, stream, TraceBuffer{});  // too large for a launch: a step of run()
    }
}

void stage_step(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, void* workspace, std::size_t bytes, cudaStream_t stream) {
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream, &capturing), "capture status");
    if (capturing != cudaStreamCaptureStatusNone) {
        throw InputError("stream", "is capturing a graph: stage the step before replaying the graph, outside the capture (a copy inside the "
                                   "graph costs a replay ~9 us); capture run_staged alone");
    }
    const ReadyKernels kernels = checked_kernels(plan, tensors, workspace, bytes, false, Outputs::unused);  // it writes the workspace alone
    const KvCacheView kv = host_kv(tensors, lengths, "staged step");
    if (!stageable(plan)) return;  // run_staged runs it as run() does
    static thread_local StepTable step;  // ~11 KB: kept off the stack
    if (!make_step_table(plan, kv, lengths.seqlens, step, !holds_grid(plan, kernels))) throw std::logic_error("a stageable plan's step did not fit its table");
    // The table's used part: its CTAs' first segments, then the segments and the empty requests.
    const std::size_t used = offsetof(StepTable, segments) + static_cast<std::size_t>(step.used_segments()) * sizeof(TableSegment);
    auto* table = static_cast<unsigned char*>(workspace) + workspace_layout(plan).step_table;
    check(cudaMemcpyAsync(table, &step, used, cudaMemcpyHostToDevice, stream), "stage the step's table");
}

void run_staged(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, cudaStream_t stream) {
    const ReadyKernels kernels = checked_kernels(plan, tensors, workspace, bytes, false);
    if (!stageable(plan)) {  // more CTAs or segments than a table holds: the lengths read on the device, as run() does
        enqueue_decode(plan, tensors, kernels, workspace, stream, TraceBuffer{});
        return;
    }
    DecodeParams p = decode_params(plan, plan.view(), tensors, workspace, TraceBuffer{});
    p.staged_table = reinterpret_cast<const StepTable*>(static_cast<unsigned char*>(workspace) + workspace_layout(plan).step_table);
    launch(decode_staged_kernel(kernels.set, plan.narrow_streams), static_cast<unsigned>(plan.grid), decode_shared_bytes(), stream, false, p);
    if (plan.launches > 1) launch(kernels.set.reduce_table, static_cast<unsigned>(reduce_grid(plan)), 0, stream, true, p);
}

void run_traced(const Schedule& plan, const DecodeTensors& tensors, void* workspace, std::size_t bytes, cudaStream_t stream, const TraceBuffer& trace) {
    check_trace_buffer(trace);
    enqueue_decode(plan, tensors, checked_kernels(plan, tensors, workspace, bytes, true), workspace, stream, trace);
}

void run_traced(const Schedule& plan, const DecodeTensors& tensors, const HostLengths& lengths, void* workspace, std::size_t bytes, cudaStream_t stream,
                const TraceBuffer& trace, StepTable& step) {
    check_trace_buffer(trace);
    if (!enqueue_table_step(plan, tensors, lengths, checked_kernels(plan, tensors, workspace, bytes, true), workspace, stream, trace, step)) {
        throw InputError("--trace", "this host-lengths step needs more CTAs or segments than a launch's table holds, so it runs as a step of "
                                    "run(): trace that one (--lengths device)");
    }
}

}  // namespace leanattn::cuda

#include "harness.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/live_plan.hpp"
#include "cuda_handles.hpp"
#include "decode.hpp"
#include "device_tensors.hpp"
#include "gpu_tools.cuh"

namespace leanattn::cuda {

namespace {

// The plan of one strategy for the live GPU (refused with InputError if a host could wait on a CTA that is
// not co-resident).
Schedule plan_for(const HarnessCase& c, const DeviceSpec& device, Strategy strategy) {
    PlanOptions options = c.plan;
    options.strategy = strategy;
    return make_schedule(c.problem, device, options);
}

// A workspace zeroed once, as a host-lengths step needs its flags (every step leaves them zero), on the stream the
// steps run on: a plain cudaMemset goes to the legacy stream, which a non-blocking stream does not wait for, so
// the zeros could land while a step ran (fixed-split's partials or the live plan wiped mid-step: every output
// NaN, seen only when other processes kept the GPU busy enough to delay the memset).
DeviceBuffer zeroed_workspace(const Schedule& plan, cudaStream_t stream) {
    DeviceBuffer workspace(workspace_bytes(plan));
    check(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), stream), "zero the workspace");
    return workspace;
}

HostLengths layout_lengths(const DeviceTensors& tensors) {
    const TensorLayout& layout = tensors.layout();
    return {layout.seqlens.data(), layout.cu_seqlens.empty() ? nullptr : layout.cu_seqlens.data()};
}

// One step of `plan` on `stream`: run(), a host-lengths step at the layout's lengths, or a staged step (its table staged,
// then run_staged).
void step(const HarnessCase& c, const Schedule& plan, const DeviceTensors& tensors, const DeviceBuffer& workspace, cudaStream_t stream) {
    if (!c.host_lengths) {
        run(plan, tensors.view(), workspace.get(), workspace.bytes(), stream);
    } else if (c.staged) {
        stage_step(plan, tensors.view(), layout_lengths(tensors), workspace.get(), workspace.bytes(), stream);
        run_staged(plan, tensors.view(), workspace.get(), workspace.bytes(), stream);
    } else {
        run(plan, tensors.view(), layout_lengths(tensors), workspace.get(), workspace.bytes(), stream);
    }
}

// What a timed replay runs: the step, or for a staged step run_staged alone, its table staged once before the capture
// (bench never changes the lengths), as an engine stages each step's table before replaying its graph.
void captured_step(const HarnessCase& c, const Schedule& plan, const DeviceTensors& tensors, const DeviceBuffer& workspace, cudaStream_t stream) {
    if (c.staged) run_staged(plan, tensors.view(), workspace.get(), workspace.bytes(), stream);
    else step(c, plan, tensors, workspace, stream);
}

// One plan under bench: its workspace, its captured step, its times (ms).
struct TimedPlan {
    explicit TimedPlan(DeviceBuffer w) : workspace(std::move(w)) {}
    DeviceBuffer workspace;
    std::unique_ptr<CapturedGraph> graph;
    std::vector<float> ms;
};

void keep_worst(Errors& worst, const Errors& e) {
    worst.rel_l2 = std::max(worst.rel_l2, e.rel_l2);
    worst.max_abs = std::max(worst.max_abs, e.max_abs);
    worst.lse_max_abs = std::max(worst.lse_max_abs, e.lse_max_abs);
    worst.non_finite += e.non_finite;
}

// One traced (untimed) run, in the state a timed replay finds the GPU in: the traced kernel has run once
// before (its code has been fetched), then the L2 was flushed. Records sized from the live plan the host
// derives from the same lengths.
KernelTrace traced_run(const HarnessCase& c, const Schedule& plan, const DeviceTensors& tensors, void* workspace, std::size_t bytes, const Stream& stream,
                       const L2Flusher& flusher) {
    // The lengths on the device are the layout's (bench never changes them): the host derives the same plan.
    const TensorLayout& layout = tensors.layout();
    KvCacheView kv = layout.views.kv;
    kv.cu_seqlens = layout.cu_seqlens.empty() ? nullptr : layout.cu_seqlens.data();
    kv.block_table = layout.block_table.empty() ? nullptr : layout.block_table.data();
    std::vector<std::int64_t> request_tiles(static_cast<std::size_t>(plan.problem.batch)), request_offset(request_tiles.size() + 1);
    const PlanView live = live_view(plan, kv, layout.seqlens.data(), request_tiles.data(), request_offset.data());
    const std::int64_t per_cta = trace_segments_per_cta(live);
    std::vector<TraceCtaRecord> ctas(static_cast<std::size_t>(plan.grid));
    std::vector<TraceSegmentRecord> segments(static_cast<std::size_t>(plan.grid * per_cta));
    DeviceBuffer cta_records(ctas.size() * sizeof(TraceCtaRecord)), segment_records(segments.size() * sizeof(TraceSegmentRecord));
    check(cudaMemsetAsync(cta_records.get(), 0, cta_records.bytes(), stream.get()), "clear the trace");  // on the run's stream: it does not wait for the legacy one
    check(cudaMemsetAsync(segment_records.get(), 0, segment_records.bytes(), stream.get()), "clear the trace");
    const TraceBuffer records{cta_records.get<TraceCtaRecord>(), segment_records.get<TraceSegmentRecord>(), per_cta};
    static thread_local StepTable table;  // a host-lengths step's: ~11 KB, kept off the stack
    const HostLengths lengths{layout.seqlens.data(), layout.cu_seqlens.empty() ? nullptr : layout.cu_seqlens.data()};
    const auto traced_step = [&] {
        if (c.host_lengths) run_traced(plan, tensors.view(), lengths, workspace, bytes, stream.get(), records, table);
        else run_traced(plan, tensors.view(), workspace, bytes, stream.get(), records);
    };
    traced_step();  // warm-up: overwritten below
    flusher.flush(stream.get());
    traced_step();
    stream.synchronize();
    check(cudaMemcpy(ctas.data(), cta_records.get(), cta_records.bytes(), cudaMemcpyDeviceToHost), "copy the trace");
    check(cudaMemcpy(segments.data(), segment_records.get(), segment_records.bytes(), cudaMemcpyDeviceToHost), "copy the trace");
    return assemble_trace(plan, live, ctas, segments, per_cta, c.host_lengths ? &table : nullptr);
}

}  // namespace

bool Validation::ok() const {
    return std::all_of(results.begin(), results.end(), [](const StrategyCheck& r) { return r.pass; });
}

Validation validate(const HarnessCase& c, int runs) {
    Validation v;
    v.device = live_device(c.problem, c.dtype, c.timing);
    v.tolerance = tolerance(c.dtype);
    std::vector<Schedule> plans;
    for (Strategy s : c.strategies) plans.push_back(plan_for(c, v.device, s));  // every refusal before any work

    DeviceTensors tensors(c.problem, c.dtype, c.layout, c.block_size, c.seed);
    HostTensors host = tensors.to_host();
    const ReferenceOutput ref = reference_attention(c.problem, host.view());
    Stream stream;
    for (const Schedule& plan : plans) {
        const DeviceBuffer workspace = zeroed_workspace(plan, stream.get());
        StrategyCheck check_result;
        check_result.strategy = plan.strategy;
        check_result.grid = plan.grid;
        for (int r = 0; r < runs; ++r) {  // poisoned before every run: a stale result cannot pass
            tensors.poison_outputs(stream.get());
            step(c, plan, tensors, workspace, stream.get());
            stream.synchronize();
            tensors.outputs_to_host(host);
            keep_worst(check_result.worst, compare_to_reference(c.problem, host.view(), ref));
        }
        check_result.pass = within_tolerance(check_result.worst, c.dtype);
        v.results.push_back(check_result);
    }
    return v;
}

Benchmark bench(const HarnessCase& c, int repeat, bool trace) {
    Benchmark b;
    b.device = live_device(c.problem, c.dtype, c.timing);
    std::vector<Schedule> plans;
    for (Strategy s : c.strategies) plans.push_back(plan_for(c, b.device, s));

    DeviceTensors tensors(c.problem, c.dtype, c.layout, c.block_size, c.seed);
    // Once per process: 12 copies of 1 GiB each time would also leave the GPU in a state only the first plan meets.
    static const double copy_gbps = measure_copy_gbps(std::size_t{1} << 30);
    b.copy_gbps = copy_gbps;
    b.kv_bytes = tensors.kv_bytes_read();
    b.floor_us = b.kv_bytes / (b.copy_gbps * 1e9) * 1e6;
    L2Flusher flusher;
    Stream stream;
    EventTimer timer;
    // Every plan's step captured in a CUDA graph first: the step's two or three launches reach the GPU together,
    // so the host's launch time (and any gap between the kernels it could cause) stays out of the measurement,
    // as in a serving loop that replays a captured step.
    std::vector<std::unique_ptr<TimedPlan>> timed;
    for (const Schedule& plan : plans) {
        auto t = std::make_unique<TimedPlan>(zeroed_workspace(plan, stream.get()));
        if (c.staged) stage_step(plan, tensors.view(), layout_lengths(tensors), t->workspace.get(), t->workspace.bytes(), stream.get());
        t->graph = std::make_unique<CapturedGraph>(stream.get(), [&](cudaStream_t s) { captured_step(c, plan, tensors, t->workspace, s); });
        // LEANATTN_GRAPH_DOT=PREFIX: each timed step's graph written to PREFIX-<strategy>.dot (bench/gpu/capture_probe.py).
        if (const char* prefix = std::getenv("LEANATTN_GRAPH_DOT"); prefix != nullptr && *prefix != '\0') {
            t->graph->write_dot((std::string(prefix) + "-" + std::string(strategy_name(plan.strategy)) + ".dot").c_str());
        }
        timed.push_back(std::move(t));
    }
    // Each plan's replays come in two blocks, the plans in one order and then in the reverse one (A B C C B A), each
    // block after warm-up replays of its own: a block timed in a state of the GPU the others were not (the first,
    // after the tensors' fill; the copy-bandwidth measurement, taken once per process, before the first line) is
    // balanced by its mirror. With one block per plan in a fixed order, the first plan paid for that state: on an
    // H100 a stream-k plan identical to no-split's, timed first, measured 0.5-4 us (up to 15%) slower on small
    // problems in some sweeps. Within a block the same captured step is replayed, as a decode loop replays it, each
    // replay after an L2 flush, so that every K/V byte comes from HBM.
    constexpr int warmup = 3;
    for (int half = 0; half < 2; ++half) {
        const int replays = half == 0 ? (repeat + 1) / 2 : repeat / 2;
        for (std::size_t k = 0; k < timed.size(); ++k) {
            TimedPlan& t = *timed[half == 0 ? k : timed.size() - 1 - k];
            for (int i = 0; i < warmup + replays; ++i) {
                flusher.flush(stream.get());
                timer.start(stream.get());
                t.graph->launch(stream.get());
                timer.stop(stream.get());
                const float ms = timer.elapsed_ms();
                if (i >= warmup) t.ms.push_back(ms);
            }
        }
    }
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const Schedule& plan = plans[i];
        std::vector<float>& ms = timed[i]->ms;
        std::sort(ms.begin(), ms.end());
        StrategyTiming t;
        t.strategy = plan.strategy;
        t.grid = plan.grid;
        t.launches = plan.launches;
        t.splits = plan.splits;
        t.snap = plan.snap;
        t.narrow_streams = plan.narrow_streams;
        t.median_us = static_cast<double>(ms[ms.size() / 2]) * 1e3;
        t.gbps = b.kv_bytes / (t.median_us * 1e-6) / 1e9;
        t.fraction_of_floor = b.floor_us / t.median_us;
        b.results.push_back(t);
        if (trace) b.traces.push_back(traced_run(c, plan, tensors, timed[i]->workspace.get(), timed[i]->workspace.bytes(), stream, flusher));
    }
    return b;
}

}  // namespace leanattn::cuda

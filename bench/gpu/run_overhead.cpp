// run_overhead.cpp — host time of one cuda::run() call (checks, parameters, the two or three launches) at
// batch 256, of one replay of its captured CUDA graph (how a decode step is run), and of one host-lengths step
// (the same checks, the host's walk of the plan at the step's lengths into the launch's table, one or two
// launches), against a bare launch of an empty kernel on the same stream. The target is ≤ 5 µs per step.
// Calls are timed in bursts of 64 (well below the launch queue's depth, so no call waits for the GPU to
// drain it), with a synchronisation between bursts; the median burst is reported per call.
// usage: bench_cuda_run_overhead [bursts] — skips, with a message and exit 0, where no GPU is found.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "cuda/cuda_handles.hpp"
#include "cuda/decode.hpp"
#include "cuda/device_tensors.hpp"
#include "cuda/gpu_tools.cuh"
#include "cuda/plan_visits.cuh"

using namespace leanattn;

namespace {

constexpr int burst = 64;

template <typename Call>
double median_us_per_call(int bursts, const cuda::Stream& stream, Call call) {
    std::vector<double> per_call;
    for (int i = 0; i < bursts; ++i) {
        stream.synchronize();
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < burst; ++k) call();
        const auto t1 = std::chrono::steady_clock::now();
        per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / burst);
    }
    stream.synchronize();
    std::sort(per_call.begin(), per_call.end());
    return per_call[per_call.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string why;
    if (!cuda::device_available(&why)) {
        std::printf("skipping the run() overhead benchmark: %s\n", why.c_str());
        return 0;
    }
    const int bursts = argc > 1 ? std::max(3, std::atoi(argv[1])) : 200;
    Problem p;
    p.batch = 256, p.q_heads = 32, p.kv_heads = 8, p.head_dim = 128, p.tile = 128;
    p.ctx.assign(256, 1024);
    std::printf("run() host time, batch 256, 32/8 heads, d 128, ctx 1024, paged cache (block 16), fp16; median of %d bursts of %d calls\n",
                bursts, burst);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::paged, 16, 1);
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    const cuda::Stream stream;
    const double bare = median_us_per_call(bursts, stream, [&] { cuda::launch_empty_kernel(stream.get()); });
    std::printf("%-12s %8.2f us per launch (one empty kernel: the floor of any launch)\n", "bare launch", bare);
    for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        const DecodeTensors view = tensors.view();
        const double us = median_us_per_call(bursts, stream, [&] { cuda::run(plan, view, workspace.get(), workspace.bytes(), stream.get()); });
        // The step as a server runs it: captured once, then one graph launch per step (the lengths change on
        // the device; nothing on the host does).
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        cuda::check(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), "begin capture");
        cuda::run(plan, view, workspace.get(), workspace.bytes(), stream.get());
        cuda::check(cudaStreamEndCapture(stream.get(), &graph), "end capture");
        cuda::check(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
        const double replay = median_us_per_call(bursts, stream, [&] { cuda::check(cudaGraphLaunch(exec, stream.get()), "graph launch"); });
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        std::printf("%-12s %8.2f us per run() (%lld launches), %6.2f us per replay of its captured graph\n",
                    std::string(strategy_name(strategy)).c_str(), us, static_cast<long long>(1 + plan.launches), replay);
    }
    // A host-lengths step's table holds 512 segments: batch 16 (128 outputs) fits it, batch 256 would run as run().
    Problem small = p;
    small.batch = 16;
    small.ctx.assign(16, 1024);
    cuda::DeviceTensors small_tensors(small, DType::fp16, CacheLayout::paged, 16, 1);
    const cuda::HostLengths lengths{small_tensors.layout().seqlens.data(), nullptr};
    std::printf("host-lengths steps, batch 16 (else the same):\n");
    for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        const Schedule plan = make_schedule(small, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        cuda::check(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), stream.get()), "zero the workspace");  // on the steps' stream
        const DecodeTensors view = small_tensors.view();
        const double device_lengths = median_us_per_call(bursts, stream, [&] { cuda::run(plan, view, workspace.get(), workspace.bytes(), stream.get()); });
        const double host = median_us_per_call(bursts, stream, [&] { cuda::run(plan, view, lengths, workspace.get(), workspace.bytes(), stream.get()); });
        std::printf("%-12s %8.2f us per run(), %6.2f us per host-lengths step (%lld launch%s)\n", std::string(strategy_name(strategy)).c_str(),
                    device_lengths, host, static_cast<long long>(plan.launches), plan.launches > 1 ? "es" : "");
    }
    return 0;
}

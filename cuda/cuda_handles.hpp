// cuda_handles.hpp — owning wrappers of the CUDA handles host code uses: a stream, an event pair, and a
// CUDA graph captured from whatever a function enqueues on a stream. Errors throw (device_buffer.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "device_buffer.cuh"

namespace leanattn::cuda {

class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~Stream() { cudaStreamDestroy(stream_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

private:
    cudaStream_t stream_ = nullptr;
};

// Times what runs on a stream between start() and stop(), in ms.
class EventTimer {
public:
    EventTimer() {
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&stop_), "cudaEventCreate");
    }
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    void start(cudaStream_t s) { check(cudaEventRecord(start_, s), "cudaEventRecord"); }
    void stop(cudaStream_t s) { check(cudaEventRecord(stop_, s), "cudaEventRecord"); }
    float elapsed_ms() {
        check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
        return ms;
    }

private:
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// What `enqueue(stream)` puts on `stream`, recorded as a graph and instantiated. In the global capture
// mode (the default) any call that could synchronise or allocate on the device while capturing fails, so a
// successful capture also shows that `enqueue` does neither. If `enqueue` throws, the capture is ended and
// discarded and the exception passes on.
class CapturedGraph {
public:
    template <typename Enqueue>
    CapturedGraph(cudaStream_t stream, Enqueue&& enqueue, cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal) {
        check(cudaStreamBeginCapture(stream, mode), "cudaStreamBeginCapture");
        try {
            std::forward<Enqueue>(enqueue)(stream);
        } catch (...) {
            cudaGraph_t discarded = nullptr;
            cudaStreamEndCapture(stream, &discarded);
            if (discarded != nullptr) cudaGraphDestroy(discarded);
            throw;
        }
        check(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture");
        const cudaError_t status = cudaGraphInstantiate(&exec_, graph_, 0);
        if (status != cudaSuccess) cudaGraphDestroy(graph_);
        check(status, "cudaGraphInstantiate");
    }
    ~CapturedGraph() {
        if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
        if (graph_ != nullptr) cudaGraphDestroy(graph_);
    }
    CapturedGraph(const CapturedGraph&) = delete;
    CapturedGraph& operator=(const CapturedGraph&) = delete;

    void launch(cudaStream_t stream) const { check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }
    // The captured graph in Graphviz's DOT, with its nodes' parameters and its edges' types (a debugging aid).
    void write_dot(const char* path) const { check(cudaGraphDebugDotPrint(graph_, path, cudaGraphDebugDotFlagsVerbose), "cudaGraphDebugDotPrint"); }
    std::size_t nodes() const {
        std::size_t n = 0;
        check(cudaGraphGetNodes(graph_, nullptr, &n), "cudaGraphGetNodes");
        return n;
    }

private:
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace leanattn::cuda

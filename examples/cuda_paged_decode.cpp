// cuda_paged_decode.cpp — the CUDA decode API end to end (cuda/decode.hpp): a paged KV cache that grows by
// one token per request at every step, and one decode step captured in a CUDA graph, then replayed at
// every step while cache_seqlens (device memory) change. Prints the first output values of each step.
//
//   q, out   (batch, 1, q_heads, d) fp16      softmax_lse (batch, q_heads, 1) fp32
//   K, V     (num_blocks, block, kv_heads, d) fp16, request b's block i at block_table[b][i]
//   cache_seqlens (batch) int32
// usage: example_cuda_paged_decode — skips, with a message and exit 0, where no GPU is found.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/schedule.hpp"
#include "cuda/decode.hpp"

using namespace leanattn;

#define CHECK_CUDA(call)                                                                         \
    do {                                                                                         \
        const cudaError_t e = (call);                                                            \
        if (e != cudaSuccess) {                                                                  \
            std::printf("%s: %s\n", #call, cudaGetErrorString(e));                              \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

int main() {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
        std::printf("skipping the example: no CUDA device\n");
        return 0;
    }
    constexpr std::int64_t batch = 4, q_heads = 32, kv_heads = 8, d = 128, block = 16, max_blocks = 64, steps = 200;
    constexpr std::int64_t num_blocks = batch * max_blocks;

    // The plan is made once, for what the cache can hold; each run reads the live lengths on the device.
    Problem shape;
    shape.batch = batch, shape.q_heads = q_heads, shape.kv_heads = kv_heads, shape.head_dim = d;
    shape.tile = default_tile(d);
    shape.ctx.assign(batch, max_blocks * block);
    const Schedule plan = make_schedule(shape, cuda::live_device(shape, DType::fp16), {});  // stream-k

    // Device memory the caller owns: inputs with made-up values, a block table that interleaves requests.
    const std::int64_t q_elems = batch * q_heads * d, kv_elems = num_blocks * block * kv_heads * d;
    std::vector<__half> host_q(static_cast<std::size_t>(q_elems)), host_kv(static_cast<std::size_t>(kv_elems));
    for (std::size_t i = 0; i < host_q.size(); ++i) host_q[i] = __float2half(std::sin(0.37f * static_cast<float>(i)));
    for (std::size_t i = 0; i < host_kv.size(); ++i) host_kv[i] = __float2half(std::cos(0.11f * static_cast<float>(i)));
    std::vector<std::int32_t> table(static_cast<std::size_t>(batch * max_blocks)), lengths(static_cast<std::size_t>(batch), 1);
    for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t i = 0; i < max_blocks; ++i) table[static_cast<std::size_t>(b * max_blocks + i)] = static_cast<std::int32_t>(i * batch + b);
    }
    void *q, *out, *k, *v;
    float* lse;
    std::int32_t *block_table, *seqlens;
    CHECK_CUDA(cudaMalloc(&q, q_elems * 2));
    CHECK_CUDA(cudaMalloc(&out, q_elems * 2));
    CHECK_CUDA(cudaMalloc(&lse, batch * q_heads * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&k, kv_elems * 2));
    CHECK_CUDA(cudaMalloc(&v, kv_elems * 2));
    CHECK_CUDA(cudaMalloc(&block_table, table.size() * sizeof(std::int32_t)));
    CHECK_CUDA(cudaMalloc(&seqlens, batch * sizeof(std::int32_t)));
    CHECK_CUDA(cudaMemcpy(q, host_q.data(), q_elems * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(k, host_kv.data(), kv_elems * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(v, host_kv.data(), kv_elems * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(block_table, table.data(), table.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));

    // The views: element strides, the head dimension contiguous.
    DecodeTensors t;
    t.dtype = DType::fp16;
    t.q = {q, q_heads * d, q_heads * d, d};  // batch, token, head
    t.o = {out, q_heads * d, q_heads * d, d};
    t.lse = {lse, q_heads, 1, 1};           // batch, head, token (a null pointer skips the LSE)
    t.kv.k = k, t.kv.v = v;
    t.kv.layout = KvLayout::paged;
    t.kv.stride_request = block * kv_heads * d;  // paged: between blocks
    t.kv.stride_token = kv_heads * d;
    t.kv.stride_head = d;
    t.kv.block_size = block, t.kv.num_blocks = num_blocks, t.kv.capacity = max_blocks * block;
    t.kv.block_table = block_table, t.kv.block_table_stride = max_blocks;
    t.seqlens = seqlens;
    t.softmax_scale = 0.0f;  // 1/sqrt(d)

    void* workspace;
    const std::size_t bytes = cuda::workspace_bytes(plan);
    CHECK_CUDA(cudaMalloc(&workspace, bytes));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::int32_t* staged;  // pinned: the copy before each replay reads it asynchronously
    CHECK_CUDA(cudaMallocHost(&staged, batch * sizeof(std::int32_t)));
    cudaEvent_t copied;  // the last copy from `staged` is done: it may be written again
    CHECK_CUDA(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));

    // One step captured (run() throws InputError before enqueuing anything if the views do not fit the plan).
    cudaGraph_t graph;
    cudaGraphExec_t step;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cuda::run(plan, t, workspace, bytes, stream);
    CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&step, graph, 0));

    std::vector<__half> first(4);
    for (std::int64_t s = 0; s < steps; ++s) {
        // A model would append this step's K/V and bump cache_seqlens with its own kernels; here the lengths
        // grow by one token per request (request b starts 100·b tokens in). The host runs ahead of the stream, so it
        // waits for the last step's copy (not its kernels) before writing the next lengths where that copy reads.
        CHECK_CUDA(cudaEventSynchronize(copied));
        for (std::int64_t b = 0; b < batch; ++b) staged[b] = static_cast<std::int32_t>(1 + 100 * b + s);
        CHECK_CUDA(cudaMemcpyAsync(seqlens, staged, batch * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream));
        CHECK_CUDA(cudaEventRecord(copied, stream));
        CHECK_CUDA(cudaGraphLaunch(step, stream));
        if (s % 50 == 0 || s == steps - 1) {
            CHECK_CUDA(cudaMemcpyAsync(first.data(), out, first.size() * 2, cudaMemcpyDeviceToHost, stream));
            CHECK_CUDA(cudaStreamSynchronize(stream));
            std::printf("step %3lld: out[0, 0, 0, 0:4] = %+.4f %+.4f %+.4f %+.4f\n", static_cast<long long>(s), __half2float(first[0]),
                        __half2float(first[1]), __half2float(first[2]), __half2float(first[3]));
        }
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    cudaGraphExecDestroy(step);
    cudaGraphDestroy(graph);
    cudaEventDestroy(copied);
    cudaFreeHost(staged);
    cudaStreamDestroy(stream);
    for (void* p : {q, out, k, v, workspace, static_cast<void*>(lse), static_cast<void*>(block_table), static_cast<void*>(seqlens)}) cudaFree(p);
    return 0;
}

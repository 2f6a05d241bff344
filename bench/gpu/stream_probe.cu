// stream_probe.cu — how fast the H100's memory delivers K and V to the decode kernel's way of reading them, and to
// other ways, with no attention computed: whether the access pattern or the kernel's own work holds a shape's
// streaming rate below what HBM gives.
//
// Reads two tensors of `mb` MiB each (K and V: tokens of 256 bytes, head dim 128 in fp16), every byte once, split
// into `grid` contiguous ranges of tokens, one per CTA (as stream-k's CTAs hold equal ranges). Each warp folds the
// 16-byte chunks it receives into a checksum (so nothing is optimised away; every run of a variant must give the same
// nonzero sum). Ways of reading:
//   cp.async  WARPS warps a CTA, each with its own pipeline of STAGES stages of blocks of BLOCK tokens of K and V
//             (16-byte copies by all its lanes, blocks dealt round-robin to the warps): the decode kernel's way at
//             8 warps, 3 stages, 16 tokens.
//   bulk      the same deal, each stage one bulk copy of the block's K and one of its V issued by one lane
//             (cp.async.bulk, completing on an mbarrier): Hopper's copy engine instead of 16-byte copies.
//   plain     16-byte loads straight to registers, 4 in flight per thread, 8 CTAs of 256 threads per SM: the ceiling.
// Timing: after a 256 MiB write and read (the L2 flushed of K and V), events around the launch, median of `reps`.
//
// usage (GPU machine): nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/stream_probe.cu -o stream_probe && ./stream_probe [mb] [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.cuh"

constexpr int token_bytes = 256;  // head dim 128, 2-byte elements
constexpr int chunks_per_token = token_bytes / 16;

__device__ inline std::uint32_t smem_addr(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

__device__ inline std::uint64_t fold(std::uint64_t sum, uint4 v) { return sum * 31u + (static_cast<std::uint64_t>(v.x ^ v.y) << 32 | (v.z ^ v.w)); }

// Adds a warp's sums with one atomic: one per thread, all on one address, cost ~0.7 ns each at the end of the launch
// (the probe's first version did that and timed the atomics: 34 thousand of them, 20 us).
__device__ inline void add_warp_sum(unsigned long long* to, std::uint64_t sum) {
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, static_cast<unsigned long long>(sum), o);
    if (threadIdx.x % 32 == 0) atomicAdd(to, static_cast<unsigned long long>(sum));
}

// What every way of reading is given: K and V's tokens, the multiple of tokens a CTA's range starts on (128: a
// LeanTile's, as the decode kernel's CTAs start; 1: anywhere), and whether a warp folds every chunk it receives
// into its checksum (some work per byte, as the kernel has) or one chunk per stage (the copies alone).
struct ReadArgs {
    const uint4* k;
    const uint4* v;
    std::int64_t tokens;
    int align;
    bool fold_all;
    unsigned long long* sums;
};

// The tokens [begin, end) of CTA blockIdx.x.
__device__ inline void cta_range(const ReadArgs& a, std::int64_t& begin, std::int64_t& end) {
    const auto start = [&](std::int64_t c) { return c >= gridDim.x ? a.tokens : a.tokens * c / gridDim.x / a.align * a.align; };
    begin = start(blockIdx.x);
    end = start(blockIdx.x + 1);
}

template <int WARPS, int STAGES, int BLOCK>
__global__ void __launch_bounds__(WARPS * 32) read_cp_async(const ReadArgs a) {
    const uint4 *k = a.k, *v = a.v;
    extern __shared__ uint4 smem[];
    constexpr int block_chunks = BLOCK * chunks_per_token;  // of K (or V)
    constexpr int stage_chunks = 2 * block_chunks;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint4* stages = smem + warp * STAGES * stage_chunks;
    std::int64_t begin, end;
    cta_range(a, begin, end);
    const std::int64_t blocks = (end - begin + BLOCK - 1) / BLOCK;
    std::uint64_t sum = 0;
    auto issue = [&](std::int64_t j, int stage) {  // block j of the CTA, if it is this warp's and exists
        if (j < blocks) {
            const std::int64_t t0 = begin + j * BLOCK;
            const int n = static_cast<int>(min(static_cast<std::int64_t>(BLOCK), end - t0)) * chunks_per_token;
            for (int c = lane; c < block_chunks; c += 32) {
                const bool live = c < n;
                const std::int64_t at = t0 * chunks_per_token + (live ? c : 0);
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(stages + stage * stage_chunks + c)), "l"(k + at), "r"(live ? 16 : 0));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(stages + stage * stage_chunks + block_chunks + c)), "l"(v + at),
                             "r"(live ? 16 : 0));
            }
        }
        asm volatile("cp.async.commit_group;");
    };
    // Warp w takes blocks w, w + WARPS, …: its i-th block sits in stage i mod STAGES.
    for (int s = 0; s < STAGES - 1; ++s) issue(warp + static_cast<std::int64_t>(s) * WARPS, s);
    for (std::int64_t i = 0;; ++i) {
        const std::int64_t j = warp + i * WARPS;
        if (j >= blocks) break;
        issue(warp + (i + STAGES - 1) * WARPS, static_cast<int>((i + STAGES - 1) % STAGES));
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1));
        __syncwarp();
        const uint4* st = stages + (i % STAGES) * stage_chunks;
        if (a.fold_all)
            for (int c = lane; c < stage_chunks; c += 32) sum = fold(sum, st[c]);
        else
            sum = fold(sum, st[lane]);
        __syncwarp();
    }
    asm volatile("cp.async.wait_group 0;");
    add_warp_sum(a.sums, sum);
}

__device__ inline void mbar_init(std::uint64_t* bar, int count) { asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)); }
__device__ inline void mbar_expect(std::uint64_t* bar, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes));
}
__device__ inline void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
    asm volatile(
        "{\n.reg .pred p;\nwait_%=:\nmbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n@!p bra wait_%=;\n}" ::"r"(smem_addr(bar)), "r"(parity));
}
__device__ inline void bulk_copy(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes),
                 "r"(smem_addr(bar))
                 : "memory");
}

template <int WARPS, int STAGES, int BLOCK>
__global__ void __launch_bounds__(WARPS * 32) read_bulk(const ReadArgs a) {
    const uint4 *k = a.k, *v = a.v;
    extern __shared__ uint4 smem[];
    constexpr int block_chunks = BLOCK * chunks_per_token;
    constexpr int stage_chunks = 2 * block_chunks;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint4* stages = smem + warp * STAGES * stage_chunks;
    auto* bars = reinterpret_cast<std::uint64_t*>(smem + WARPS * STAGES * stage_chunks) + warp * STAGES;
    if (lane == 0)
        for (int s = 0; s < STAGES; ++s) mbar_init(bars + s, 1);
    asm volatile("fence.mbarrier_init.release.cluster;");
    __syncwarp();
    std::int64_t begin, end;
    cta_range(a, begin, end);
    const std::int64_t blocks = (end - begin + BLOCK - 1) / BLOCK;
    std::uint64_t sum = 0;
    auto issue = [&](std::int64_t j, int stage) {
        if (j >= blocks || lane != 0) return;
        const std::int64_t t0 = begin + j * BLOCK;
        const std::uint32_t bytes = static_cast<std::uint32_t>(min(static_cast<std::int64_t>(BLOCK), end - t0)) * token_bytes;
        mbar_expect(bars + stage, 2 * bytes);
        bulk_copy(stages + stage * stage_chunks, k + t0 * chunks_per_token, bytes, bars + stage);
        bulk_copy(stages + stage * stage_chunks + block_chunks, v + t0 * chunks_per_token, bytes, bars + stage);
    };
    for (int s = 0; s < STAGES - 1; ++s) issue(warp + static_cast<std::int64_t>(s) * WARPS, s);
    for (std::int64_t i = 0;; ++i) {
        const std::int64_t j = warp + i * WARPS;
        if (j >= blocks) break;
        issue(warp + (i + STAGES - 1) * WARPS, static_cast<int>((i + STAGES - 1) % STAGES));
        const int stage = static_cast<int>(i % STAGES);
        mbar_wait(bars + stage, static_cast<std::uint32_t>((i / STAGES) & 1));
        const std::int64_t t0 = begin + j * BLOCK;
        const int n = static_cast<int>(min(static_cast<std::int64_t>(BLOCK), end - t0)) * chunks_per_token;
        const uint4* st = stages + stage * stage_chunks;
        if (a.fold_all) {
            for (int c = lane; c < n; c += 32) sum = fold(sum, st[c]);
            for (int c = lane; c < n; c += 32) sum = fold(sum, st[block_chunks + c]);
        } else {
            sum = fold(sum, st[lane % n]);
        }
        __syncwarp();
    }
    add_warp_sum(a.sums, sum);
}

// The whole CTA shares one pipeline of STAGES stages of BLOCK tokens (K, then V), every thread copying its part, a
// barrier per stage: a FlashAttention-2 kernel's way (and cuDNN's 4-warp CTAs').
template <int WARPS, int STAGES, int BLOCK>
__global__ void __launch_bounds__(WARPS * 32) read_cta_pipeline(const ReadArgs a) {
    extern __shared__ uint4 smem[];
    constexpr int threads = WARPS * 32;
    constexpr int block_chunks = BLOCK * chunks_per_token;
    constexpr int stage_chunks = 2 * block_chunks;
    std::int64_t begin, end;
    cta_range(a, begin, end);
    const std::int64_t blocks = (end - begin + BLOCK - 1) / BLOCK;
    std::uint64_t sum = 0;
    auto issue = [&](std::int64_t j, int stage) {
        if (j < blocks) {
            const std::int64_t t0 = begin + j * BLOCK;
            const int n = static_cast<int>(min(static_cast<std::int64_t>(BLOCK), end - t0)) * chunks_per_token;
            for (int c = threadIdx.x; c < block_chunks; c += threads) {
                const bool live = c < n;
                const std::int64_t at = t0 * chunks_per_token + (live ? c : 0);
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(smem + stage * stage_chunks + c)), "l"(a.k + at), "r"(live ? 16 : 0));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(smem + stage * stage_chunks + block_chunks + c)), "l"(a.v + at),
                             "r"(live ? 16 : 0));
            }
        }
        asm volatile("cp.async.commit_group;");
    };
    for (int s = 0; s < STAGES - 1; ++s) issue(s, s);
    for (std::int64_t i = 0; i < blocks; ++i) {
        issue(i + STAGES - 1, static_cast<int>((i + STAGES - 1) % STAGES));
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1));
        __syncthreads();
        sum = fold(sum, smem[(i % STAGES) * stage_chunks + threadIdx.x % stage_chunks]);
        __syncthreads();
    }
    asm volatile("cp.async.wait_group 0;");
    add_warp_sum(a.sums, sum);
}

// The ceiling: plain 16-byte loads, 4 in flight per thread, K then V grid-stride, many CTAs (no shared memory).
__global__ void __launch_bounds__(256) read_plain(const ReadArgs a) {
    const std::int64_t n = a.tokens * chunks_per_token, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    std::uint64_t sum = 0;
    for (const uint4* p : {a.k, a.v}) {
        for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += 4 * stride) {
            uint4 x[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) x[u] = i + u * stride < n ? __ldcs(p + i + u * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int u = 0; u < 4; ++u) sum = fold(sum, x[u]);
        }
    }
    add_warp_sum(a.sums, sum);
}

__global__ void fill(uint4* p, std::int64_t n, std::uint32_t seed) {
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
        p[i] = make_uint4(x, x * 3u + 1u, x ^ 0x9e3779b9u, x + seed);
    }
}

__global__ void flush(uint4* scratch, std::int64_t n, unsigned long long* sink) {  // write, then read: the L2 left clean
    std::uint64_t s = 0;
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        scratch[i] = make_uint4(static_cast<std::uint32_t>(i), 1, 2, 3);
    }
    __syncthreads();
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        s += scratch[(i * 7919) % n].x;
    }
    if (s == 42) atomicAdd(sink, 1ull);
}

struct Variant {
    const char* name;
    void (*kernel)(ReadArgs);
    int warps, stages, block, smem, ctas_per_sm;
};

template <int W, int S, int B>
Variant cp_async_variant(const char* name, int ctas_per_sm) {
    return {name, read_cp_async<W, S, B>, W, S, B, W * S * 2 * B * token_bytes, ctas_per_sm};
}
template <int W, int S, int B>
Variant bulk_variant(const char* name, int ctas_per_sm) {
    return {name, read_bulk<W, S, B>, W, S, B, W * S * 2 * B * token_bytes + W * S * 8, ctas_per_sm};
}

int main(int argc, char** argv) {
    const std::int64_t mb = argc > 1 ? std::atoll(argv[1]) : 80;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 50;
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    const std::int64_t bytes = mb << 20, chunks = bytes / 16, tokens = bytes / token_bytes;
    uint4 *k, *v, *scratch;
    unsigned long long* sums;
    const std::int64_t scratch_chunks = (256ll << 20) / 16;
    CHECK(cudaMalloc(&k, bytes));
    CHECK(cudaMalloc(&v, bytes));
    CHECK(cudaMalloc(&scratch, scratch_chunks * 16));
    CHECK(cudaMalloc(&sums, 16));
    fill<<<4 * sms, 256>>>(k, chunks, 1u);
    fill<<<4 * sms, 256>>>(v, chunks, 2u);
    CHECK(cudaDeviceSynchronize());
    std::vector<Variant> variants = {
        cp_async_variant<8, 3, 16>("cp.async 8 warps x 3 stages x 16 tokens (the kernel's)", 1),
        cp_async_variant<8, 2, 16>("cp.async 8 warps x 2 stages x 16 tokens", 1),
        cp_async_variant<8, 6, 8>("cp.async 8 warps x 6 stages x 8 tokens", 1),
        cp_async_variant<4, 3, 16>("cp.async 4 warps x 3 stages x 16 tokens, 1 CTA/SM", 1),
        cp_async_variant<4, 3, 16>("cp.async 4 warps x 3 stages x 16 tokens, 2 CTAs/SM", 2),
        bulk_variant<8, 3, 16>("bulk 8 warps x 3 stages x 16 tokens", 1),
        bulk_variant<4, 3, 32>("bulk 4 warps x 3 stages x 32 tokens", 1),
        bulk_variant<4, 3, 16>("bulk 4 warps x 3 stages x 16 tokens, 2 CTAs/SM", 2),
        bulk_variant<2, 6, 16>("bulk 2 warps x 6 stages x 16 tokens", 1),
        {"cta-wide 4 warps x 3 stages x 64 tokens", read_cta_pipeline<4, 3, 64>, 4, 3, 64, 3 * 2 * 64 * token_bytes, 1},
        {"cta-wide 4 warps x 3 stages x 64 tokens, 2 CTAs/SM", read_cta_pipeline<4, 3, 64>, 4, 3, 64, 3 * 2 * 64 * token_bytes, 2},
        {"cta-wide 8 warps x 3 stages x 128 tokens", read_cta_pipeline<8, 3, 128>, 8, 3, 128, 3 * 2 * 128 * token_bytes, 1},
        {"plain loads, 256 threads, 4 x 16 B in flight each", read_plain, 8, 0, 0, 0, 8},
    };
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::printf("%s, %d SMs; K and V %lld MiB each (%.1f MB read); median of %d after a 256 MiB flush\n", prop.name, sms, static_cast<long long>(mb),
                2.0 * static_cast<double>(bytes) / 1e6, reps);
    const auto time_one = [&](const Variant& var, int grid, int align, bool fold_all, int round) {
        const ReadArgs args{k, v, tokens, align, fold_all, sums};
        std::vector<float> us;
        unsigned long long first = 0;
        bool stable = true;
        for (int r = 0; r < reps; ++r) {
            flush<<<2 * sms, 512>>>(scratch, scratch_chunks, sums + 1);
            CHECK(cudaMemsetAsync(sums, 0, 8));
            CHECK(cudaEventRecord(e0));
            var.kernel<<<grid, var.warps * 32, var.smem>>>(args);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaGetLastError());
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            us.push_back(ms * 1e3f);
            unsigned long long s = 0;
            CHECK(cudaMemcpy(&s, sums, 8, cudaMemcpyDeviceToHost));
            if (r == 0) first = s;
            else stable = stable && s == first;
        }
        std::sort(us.begin(), us.end());
        const double med = us[us.size() / 2];
        std::printf("round %d  %-52s %-9s %-10s grid %4d  %7.2f us  p10 %7.2f  p90 %7.2f  %6.0f GB/s  %s\n", round + 1, var.name,
                    fold_all ? "fold all" : "touch", align == 1 ? "any start" : "aligned", grid, med, us[us.size() / 10], us[us.size() * 9 / 10],
                    2.0 * static_cast<double>(bytes) / med / 1e3, stable && first != 0 ? "sum stable" : "SUM UNSTABLE");
    };
    // A sum of per-warp folds depends on how blocks are dealt: each run is checked against its variant's first.
    for (int round = 0; round < 2; ++round) {
        for (std::size_t i = 0; i < variants.size(); ++i) {
            const Variant& var = variants[i];
            if (var.smem > 0) CHECK(cudaFuncSetAttribute(var.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, var.smem));
            // Every SM's resident CTAs, and 80 and 128 SMs' worth (Phi-3-medium's and Llama-3-8B's B=8 outputs).
            for (const int per_sm_grid : {sms, 80, 128}) {
                const int grid = per_sm_grid * var.ctas_per_sm;
                if (i == 0) {  // the kernel's way: with and without work per byte, from any start and from LeanTiles'
                    for (const bool fold_all : {true, false})
                        for (const int align : {1, 128}) time_one(var, grid, align, fold_all, round);
                } else {
                    time_one(var, grid, 128, false, round);
                }
            }
        }
    }
    return 0;
}

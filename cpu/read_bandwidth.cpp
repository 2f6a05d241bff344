#include "read_bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <omp.h>
#include <unistd.h>
#include <vector>

namespace leanattn::cpu {

namespace {

// One thread's share, summed in 16 independent lanes (the compiler turns them into vector registers, so
// the adds never wait on each other). With `Ahead`, each 64-byte step also asks for the line 8 KiB on into
// L2: some CPUs need that to reach their bandwidth from few cores (a 16-core Xeon VM: 84 GB/s plain,
// 101 GB/s with it, 1-thread 9.6 → 11.4), others lose a little (the 2-core EPYC VM: 33 → 31). The
// executor's kernels prefetch too, so the floor they are held to must be the better of the two.
template <bool Ahead>
float stream_sum(const float* q, std::int64_t n) {
    constexpr std::int64_t ahead_bytes = 8192;
    float lanes[16] = {};
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if constexpr (Ahead) __builtin_prefetch(reinterpret_cast<const char*>(q + i) + ahead_bytes, 0, 2);
        for (int k = 0; k < 16; ++k) lanes[k] += q[i + k];
    }
    float total = 0;
    for (float lane : lanes) total += lane;
    for (; i < n; ++i) total += q[i];
    return total;
}

}  // namespace

double read_buffer_bytes() {
    double llc = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    llc = static_cast<double>(sysconf(_SC_LEVEL3_CACHE_SIZE));  // -1 or 0 where unknown
#endif
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    const double want = std::max(1073741824.0, 4 * llc);
    return physical > 0 ? std::min(want, physical / 4) : want;
}

double measure_read_gbps(int threads, double bytes, int passes) {
    if (bytes <= 0) bytes = read_buffer_bytes();
    const int team = threads > 0 ? threads : omp_get_max_threads();
    const auto n = static_cast<std::int64_t>(bytes / sizeof(float));
    std::vector<float> buffer(static_cast<std::size_t>(n));
#pragma omp parallel for num_threads(team) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) buffer[i] = static_cast<float>(i & 1023);  // first touch by the reading threads
    double best = 0;
    volatile float sink = 0;
    for (int pass = 0; pass < 2 * passes; ++pass) {  // the two readers take turns
        float total = 0;
        const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(team) reduction(+ : total)
        {
            const int me = omp_get_thread_num(), count = omp_get_num_threads();
            const std::int64_t begin = n * me / count, end = n * (me + 1) / count;
            total += pass % 2 ? stream_sum<true>(buffer.data() + begin, end - begin) : stream_sum<false>(buffer.data() + begin, end - begin);
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        sink = sink + total;
        best = std::max(best, static_cast<double>(n) * sizeof(float) / s / 1e9);
    }
    return best;
}

}  // namespace leanattn::cpu

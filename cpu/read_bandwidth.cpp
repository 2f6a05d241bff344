#include "read_bandwidth.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <omp.h>
#include <unistd.h>
#include <vector>

namespace leanattn::cpu {

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
    for (int pass = 0; pass < passes; ++pass) {
        float total = 0;
        const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(team) reduction(+ : total)
        {
            const int me = omp_get_thread_num(), count = omp_get_num_threads();
            const std::int64_t begin = n * me / count, end = n * (me + 1) / count;
            total += Eigen::Map<const Eigen::VectorXf>(buffer.data() + begin, end - begin).sum();  // vectorised
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        sink = sink + total;
        best = std::max(best, static_cast<double>(n) * sizeof(float) / s / 1e9);
    }
    return best;
}

}  // namespace leanattn::cpu

// read_bandwidth.hpp — this machine's plain read bandwidth: the CPU's memory floor, measured in the same
// run as the executor so the two are comparable.
#pragma once

namespace leanattn::cpu {

// Streams a buffer of `bytes` (default 1 GiB, far beyond the last-level cache) with `threads` threads
// (0 = OpenMP's default), summing it; best of `passes`. Returns GB/s (1e9 bytes per second).
double measure_read_gbps(int threads = 0, double bytes = 1073741824.0, int passes = 3);

}  // namespace leanattn::cpu

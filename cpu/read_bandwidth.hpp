// read_bandwidth.hpp — this machine's plain read bandwidth: the CPU's memory floor, measured in the same
// run as the executor so the two are comparable.
#pragma once

namespace leanattn::cpu {

// The buffer a streaming read must cover so no cache level holds it: 4 × the last-level cache (as the OS
// reports it), at least 1 GiB, at most a quarter of physical memory.
double read_buffer_bytes();

// Streams a buffer of `bytes` (0: read_buffer_bytes()) with `threads` threads (0 = OpenMP's default), each
// summing its contiguous share, plainly and with an L2 prefetch ahead (read_bandwidth.cpp says why);
// `passes` of each, the best of all. Returns GB/s (1e9 bytes per second).
double measure_read_gbps(int threads = 0, double bytes = 0, int passes = 5);

}  // namespace leanattn::cpu

// thread_stack.hpp — the address space each OpenMP worker thread reserves for its stack.
//
// A run on N threads reserves N − 1 worker stacks besides its data: OMP_STACKSIZE (or GOMP_STACKSIZE) where set,
// else the C library's default for a new thread (from `ulimit -s`, typically 8 MiB). Under an address-space limit
// (`ulimit -v`) a thousand such stacks are gigabytes, and libgomp exits the process when it cannot create a thread;
// the CLI's memory estimate counts them, so such a run is refused with a message instead.
#pragma once

#include <cstdint>

namespace leanattn::cpu {

// Bytes one worker thread's stack reserves.
std::int64_t thread_stack_bytes();

}  // namespace leanattn::cpu

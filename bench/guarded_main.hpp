// guarded_main.hpp — a benchmark tool's main: run it, and report an exception (a file the reader refuses, a kernel or
// device that does not load) as one line on stderr and exit status 2, instead of terminating.
#pragma once

#include <cstdio>
#include <exception>

namespace leanattn::bench {

template <typename Run>
int guarded_main(const char* tool, Run run, int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool, e.what());
        return 2;
    }
}

}  // namespace leanattn::bench

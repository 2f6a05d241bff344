// The stack each OpenMP worker reserves, as the memory estimate counts it: OMP_STACKSIZE's syntax, else the C
// library's default for a new thread.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <pthread.h>

#include "cpu/thread_stack.hpp"

using leanattn::cpu::thread_stack_bytes;

namespace {

// Sets the two variables for one check and restores them after.
struct StackEnv {
    StackEnv(const char* omp, const char* gomp) {
        ::unsetenv("OMP_STACKSIZE");
        ::unsetenv("GOMP_STACKSIZE");
        if (omp != nullptr) ::setenv("OMP_STACKSIZE", omp, 1);
        if (gomp != nullptr) ::setenv("GOMP_STACKSIZE", gomp, 1);
    }
    ~StackEnv() {
        ::unsetenv("OMP_STACKSIZE");
        ::unsetenv("GOMP_STACKSIZE");
    }
};

std::int64_t default_thread_stack() {
    pthread_attr_t attr;
    std::size_t bytes = 0;
    pthread_attr_init(&attr);
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
    return static_cast<std::int64_t>(bytes);
}

}  // namespace

TEST_CASE("a worker's stack: OMP_STACKSIZE with its units, GOMP_STACKSIZE, else the C library's default") {
    {
        const StackEnv env("16M", nullptr);
        CHECK(thread_stack_bytes() == std::int64_t{16} << 20);
    }
    {
        const StackEnv env("512", nullptr);  // no unit: kilobytes
        CHECK(thread_stack_bytes() == std::int64_t{512} << 10);
    }
    {
        const StackEnv env(" 2 g", nullptr);
        CHECK(thread_stack_bytes() == std::int64_t{2} << 30);
    }
    {
        const StackEnv env("4096B", nullptr);
        CHECK(thread_stack_bytes() == 4096);
    }
    {
        const StackEnv env(nullptr, "3m");
        CHECK(thread_stack_bytes() == std::int64_t{3} << 20);
    }
    {
        const StackEnv env("lots", nullptr);  // malformed: ignored, as libgomp ignores it
        CHECK(thread_stack_bytes() == default_thread_stack());
    }
    {
        const StackEnv env(nullptr, nullptr);
        CHECK(thread_stack_bytes() == default_thread_stack());
        CHECK(thread_stack_bytes() >= std::int64_t{64} << 10);
    }
}

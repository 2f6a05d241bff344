#include "thread_stack.hpp"

#include <pthread.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace leanattn::cpu {

namespace {

// OpenMP's stack-size syntax: a number and an optional unit B, K, M or G (K when none is given); 0 when unset or
// malformed (libgomp then ignores it too).
std::int64_t omp_stacksize_bytes(const char* text) {
    if (text == nullptr) return 0;
    const std::string s(text);
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::int64_t value = 0;
    const std::size_t digits = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && value < (std::int64_t{1} << 40)) value = value * 10 + (s[i++] - '0');
    if (i == digits) return 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::int64_t unit = 1024;
    if (i < s.size()) {
        switch (std::toupper(static_cast<unsigned char>(s[i]))) {
            case 'B': unit = 1; break;
            case 'K': unit = std::int64_t{1} << 10; break;
            case 'M': unit = std::int64_t{1} << 20; break;
            case 'G': unit = std::int64_t{1} << 30; break;
            default: return 0;
        }
    }
    return value * unit;
}

}  // namespace

std::int64_t thread_stack_bytes() {
    for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"}) {
        if (const std::int64_t bytes = omp_stacksize_bytes(std::getenv(name)); bytes > 0) return bytes;
    }
    pthread_attr_t attr;
    std::size_t bytes = 0;
    if (pthread_attr_init(&attr) != 0) return std::int64_t{8} << 20;
    if (pthread_attr_getstacksize(&attr, &bytes) != 0 || bytes == 0) bytes = std::size_t{8} << 20;
    pthread_attr_destroy(&attr);
    return static_cast<std::int64_t>(bytes);
}

}  // namespace leanattn::cpu

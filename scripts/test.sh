#!/usr/bin/env bash
# Sets up (apt-get), builds, and runs every test. CUDA tests skip with a message when no GPU is found.
#
#   ./scripts/test.sh          Release build in build/ (or $LEANATTN_BUILD_DIR), the whole suite: what CI runs
#   ./scripts/test.sh --asan   AddressSanitizer + UndefinedBehaviorSanitizer over the whole suite, in build-asan/
#                              (any report fails the test that caused it)
#   ./scripts/test.sh --tsan   ThreadSanitizer over the CPU executor's tests, in build-tsan/, built with clang
#                              and LLVM's OpenMP runtime, whose Archer tool tells TSan about OpenMP's fork, join
#                              and barriers (GCC's libgomp is not instrumented: every region would be a report)
# The sanitizer modes take tens of minutes on 2 cores: they are not part of CI's default run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}

case "$mode" in
  "")
    build=${LEANATTN_BUILD_DIR:-$root/build}
    "$root/scripts/build.sh"
    cd "$build"
    ctest --output-on-failure -j "$(nproc)" --timeout 900
    ;;
  --asan)
    "$root/scripts/install-deps.sh"
    build=$root/build-asan
    # Shared libstdc++ and Boost: ASan intercepts __cxa_throw to clean the stack an exception unwinds, which a
    # statically linked libstdc++ bypasses (then every later stack read is a false report).
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLEANATTN_SANITIZE=ON -DLEANATTN_CUDA=OFF \
      -DLEANATTN_STATIC_RUNTIME=OFF >/dev/null
    cmake --build "$build" -j "$(nproc)"
    cd "$build"
    export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    ctest --output-on-failure -j "$(nproc)" --timeout 1800 -E "^python|^install"
    # Python and the installed C consumer load the sanitized libleanattn.so into programs built without the
    # sanitizers, so the runtime must come first; Python leaks by design (interned objects): no leak check.
    LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 \
      ctest --output-on-failure --timeout 1800 -R "^python: pytest python/tests|^install: (find_package|add_subdirectory)"
    ;;
  --tsan)
    "$root/scripts/install-deps.sh"
    build=$root/build-tsan
    CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLEANATTN_CUDA=OFF \
      -DLEANATTN_STATIC_RUNTIME=OFF -DLEANATTN_BENCH=OFF -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
    cmake --build "$build" -j "$(nproc)" --target test_cpu
    archer=$(find /usr/lib/llvm-*/lib -name libarcher.so 2>/dev/null | sort | tail -1)
    [ -n "$archer" ] || { echo "error: libarcher.so (LLVM's OpenMP tool for TSan) not found; apt-get install libomp-dev" >&2; exit 2; }
    # halt_on_error: the first race fails the run. ignore_noninstrumented_modules: libstdc++'s and libomp's own
    # uninstrumented internals are not ours to judge; every access of our code is still checked.
    OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="halt_on_error=1:ignore_noninstrumented_modules=1" OMP_NUM_THREADS=4 \
      "$build/tests/test_cpu"
    ;;
  *)
    echo "usage: $0 [--asan|--tsan]" >&2
    exit 2
    ;;
esac

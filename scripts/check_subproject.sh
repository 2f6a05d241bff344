#!/usr/bin/env bash
# Builds examples/consumer/decode.cpp in a fresh project that adds this source tree with add_subdirectory (as
# FetchContent does) and links leanattn::leanattn, the name an installed package gives, then runs it. CUDA off:
# the C++ API's CPU path is what it checks, in seconds (with CUDA on, the same project builds in ~3 minutes on 2 cores:
# leanattn::cuda keeps its CUDA standard to itself, so the consumer need not enable CUDA; checked by hand).
# usage: check_subproject.sh [CXX_COMPILER]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(leanattn_subproject LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
set(LEANATTN_CUDA OFF CACHE STRING "" FORCE)
add_subdirectory("$root" leanattn)
add_executable(decode_cpp "$root/examples/consumer/decode.cpp")
target_link_libraries(decode_cpp PRIVATE leanattn::leanattn)
CMAKE
compiler=()
[ -n "${1:-}" ] && compiler=("-DCMAKE_CXX_COMPILER=$1")
quiet() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; echo "check_subproject: failed: $*" >&2; exit 1; }; }
quiet cmake -S "$work" -B "$work/build" -G Ninja "${compiler[@]}"
quiet cmake --build "$work/build" --target decode_cpp
"$work/build/decode_cpp"
echo "subproject: ok"

#!/usr/bin/env bash
# Gets what the GPU machine needs ready here, where the build tools are: the GPU machine has nvcc, CMake, ninja,
# Python 3.12 and PyTorch, but no Debian packages (no Eigen, Boost or nlohmann-json) and no network.
#
# usage (here, from anywhere in the repository): bench/gpu/prepare.sh [--flashinfer]
#   1. builds (scripts/build.sh: the `leanattn` binary and libleanattn.so link libstdc++ statically, so they run there)
#   2. copies both into .devbuild/ (ignored by git; copied to the GPU machine with the tree) and checks they hold the
#      CUDA code, and bench_auto_speed, which bench/gpu/check.sh runs there
#   3. --flashinfer: downloads FlashInfer's wheel and the one package it needs that the GPU image lacks into .whl/
#      (ignored; copied there too), for Python 3.12 on x86-64
#   4. prints the sizes against the 64 MiB we keep what is copied to a GPU machine under, and fails over it
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# FlashInfer 0.5.3 is the newest wheel that imports without NVIDIA's CUTLASS DSL and cuDNN frontend (absent on the
# GPU image and far too large to copy there) and compiles its decode kernels with the machine's own nvcc at first use;
# apache-tvm-ffi 0.1.3 (its bindings, the release that followed it) is its only import the image lacks.
FLASHINFER=flashinfer-python==0.5.3
TVM_FFI=apache-tvm-ffi==0.1.3
LIMIT=$((64 * 1024 * 1024))

flashinfer=""
for arg in "$@"; do
  case $arg in
    --flashinfer) flashinfer=1 ;;
    *) echo "prepare.sh: unknown argument $arg (usage: prepare.sh [--flashinfer])" >&2; exit 2 ;;
  esac
done

./scripts/build.sh >/dev/null
mkdir -p .devbuild
cp -L build/apps/leanattn .devbuild/leanattn
cp -L build/capi/libleanattn.so .devbuild/libleanattn.so
# check.sh's host time of --strategy auto, on the GPU machine's own CPU (1.7 MiB; not beside the wheels, whose runs are
# the suite's, not check.sh's: 64 MiB has no room for both; test_cuda and bench_cuda_run_overhead, 18-19 MB each, never:
# copy them xz-compressed when a run needs them, as check.sh says)
rm -f .devbuild/bench_auto_speed
if [ -z "$flashinfer" ]; then cp -L build/bench/bench_auto_speed .devbuild/bench_auto_speed && strip .devbuild/bench_auto_speed; fi
# Their symbol tables serve no one there, and 64 MiB is tight: 2.5 MiB fewer.
strip .devbuild/leanattn && strip --strip-unneeded .devbuild/libleanattn.so
# The CLI has `cuda` only when built with nvcc; the library says whether it has its CUDA backend.
if ! .devbuild/leanattn cuda --help >/dev/null 2>&1; then
  echo "prepare.sh: .devbuild/leanattn was built without CUDA (no nvcc here?): the suite's CLI validation cannot run" >&2
fi
lib_cuda=$(python3 -c 'import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).leanattn_has_cuda())' .devbuild/libleanattn.so)
if [ "$lib_cuda" != 1 ]; then
  echo "prepare.sh: warning: .devbuild/libleanattn.so has no CUDA backend (leanattn_has_cuda() = $lib_cuda):" >&2
  echo "  the suite will validate with the CLI and time SDPA and FlashInfer, and record leanattn's rows as refused" >&2
fi

if [ -n "$flashinfer" ]; then
  rm -rf .whl && mkdir -p .whl
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any -d .whl "$FLASHINFER" "$TVM_FFI"
  for w in .whl/*.whl; do
    echo "$(basename "$w") needs: $(unzip -p "$w" '*/METADATA' | grep '^Requires-Dist' | grep -v 'extra ==' | cut -d' ' -f2- | paste -sd, -)"
  done
fi

size() {  # bytes of the paths that exist (none: 0)
  local total=0 p
  for p in "$@"; do
    if [ -e "$p" ]; then total=$((total + $(du -sbL "$p" | cut -f1))); fi
  done
  echo "$total"
}
tree=$(git ls-files -co --exclude-standard -z | xargs -0 stat -c %s | awk '{s += $1} END {print s + 0}')
raw=$(git ls-files -z bench/results/raw | xargs -0 stat -c %s | awk '{s += $1} END {print s + 0}')
devbuild=$(size .devbuild)
wheels=0; [ -z "$flashinfer" ] || wheels=$(size .whl)  # carried only with --flashinfer
# What the copy costs is closer to a tar of it all (a header and a block's padding per file) than to the bytes.
total=$({ git ls-files -co --exclude-standard; find .devbuild -type f; if [ -n "$flashinfer" ]; then find .whl -type f; fi; } | tar cf - -T - 2>/dev/null | wc -c)
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
echo "travels: working tree $(mib "$tree") in $(git ls-files -co --exclude-standard | wc -l) files (bench/results/raw $(mib "$raw")), .devbuild $(mib "$devbuild") (leanattn $(mib "$(size .devbuild/leanattn)"), libleanattn.so $(mib "$(size .devbuild/libleanattn.so)")), .whl $(mib "$wheels"): $(mib "$total") as a tar, of 64 MiB"
if [ "$total" -gt "$LIMIT" ]; then
  echo "prepare.sh: over the 64 MiB we copy to a GPU machine: copy less at a time. The binaries compress about 1.3x" >&2
  echo "  (xz -T2 -c .devbuild/leanattn > DIR/leanattn.xz, DIR ignored by git, unpacked there with xz -dc): a run that" >&2
  echo "  needs the CLI alone fits so; one that needs the CLI and the library does not while the tracked raw" >&2
  echo "  results take $(mib "$raw") (scripts/compress_raw.sh packs and compresses them)" >&2
  exit 1
fi
echo "copy the tree with .devbuild${flashinfer:+ and .whl} to the GPU machine; the commands to run there are in bench/gpu/README.md"

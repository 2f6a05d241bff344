#!/usr/bin/env bash
# Installs a built tree into a fresh prefix, builds examples/consumer against it with find_package(leanattn),
# runs its C++ and C programs, and imports the installed Python package. usage: check_install.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
quiet() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; echo "check_install: failed: $*" >&2; exit 1; }; }
quiet cmake --install "$build" --prefix "$work/prefix"
# The consumer builds with the compilers the package was built with: an OpenMP library built by clang calls LLVM's
# runtime (__kmpc_*), which GCC's libgomp, what find_package(OpenMP) gives a GCC consumer, does not provide.
compilers=()
for lang in C CXX; do
  compiler=$(sed -n "s/^CMAKE_${lang}_COMPILER:[A-Z]*=//p" "$build/CMakeCache.txt")
  [ -n "$compiler" ] && compilers+=("-DCMAKE_${lang}_COMPILER=$compiler")
done
quiet cmake -S "$root/examples/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${compilers[@]}"
quiet cmake --build "$work/consumer"
"$work/consumer/decode_cpp"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer/decode_c"
# The C ABI alone, where none of the C++ API's dependencies can be found: find_package(leanattn COMPONENTS capi).
quiet cmake -S "$root/examples/consumer" -B "$work/consumer-c" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${compilers[@]}" -DC_ABI_ONLY=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
quiet cmake --build "$work/consumer-c"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer-c/decode_c" >/dev/null
"$work/prefix/bin/leanattn" schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --format json >/dev/null  # finds its installed data/
if python=$(command -v /usr/bin/python3) && "$python" -c "import torch" 2>/dev/null; then
  (cd "$work" && PYTHONPATH="$work/prefix/lib/python" "$python" -c "import leanattn; print('python', leanattn.__version__, leanattn.schedule(device='paper-5sm', heads=2, head_dim=64, ctx=1280)['grid'])")
fi
echo "install: ok"

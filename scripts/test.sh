#!/usr/bin/env bash
# Sets up (apt-get), builds, and runs every test. CUDA tests skip with a message when no GPU is found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LEANATTN_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)" --timeout 900

#!/usr/bin/env bash
# Installs the Debian packages leanattn builds with, when any is missing (needs root, or sudo).
# CUDA (nvcc) is optional and never installed here: CUDA parts build when it is found. clang and LLVM's
# OpenMP runtime build the coverage-guided fuzz target (libFuzzer) and the ThreadSanitizer mode of test.sh; python3-venv
# gives the fresh environment `pip install .` is tested in (scripts/check_pip.sh).
set -euo pipefail
packages=(cmake ninja-build g++ libeigen3-dev catch2 libboost-program-options-dev nlohmann-json3-dev python3-torch python3-pytest python3-venv clang libomp-dev xz-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

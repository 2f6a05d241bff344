#!/usr/bin/env bash
# Host time of run(), of its graph replay, and of a host-lengths step (bench/gpu/run_overhead.cpp).
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-p10/bench_cuda_run_overhead.xz > .devbuild/bench_cuda_run_overhead; chmod +x .devbuild/bench_cuda_run_overhead
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt; nproc >> $out/machine.txt
.devbuild/bench_cuda_run_overhead 200 | tee $out/overhead.txt

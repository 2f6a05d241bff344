#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q98/run.sh $OUT", carry=[".devbuild-xz-q98"], kind="nvidia-h100-x1"), 2026-11-27 00:41 UTC, GPU in machine.txt
# bench/gpu/param_probe.cu: what a launch's parameter block costs (64 B, 2 KB, 4 KB and a StepTable's 11 KB), each a
# one-kernel CUDA graph timed as the suite times a step (spin, events, one replay), and 20 replays back to back.
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/param_probe.cu -o .devbuild/param_probe && echo "built at $SECONDS s"
.devbuild/param_probe 300 > $r/param-probe.txt 2>&1; echo "probe rc $? at $SECONDS s"; cat $r/param-probe.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q92/run.sh $OUT", carry=[".devbuild-xz-q92"], kind="nvidia-h100-x1"), 2026-11-26 23:41 UTC, GPU in machine.txt
# bench/gpu/stream_probe.cu, third version (one atomic per warp; CTA-wide pipelines added), at Phi-3-medium B=8 4k's
# bytes (80 MiB each of K and V) and Llama-3-8B B=8 4k's (64 MiB).
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/stream_probe.cu -o .devbuild/stream_probe && echo "probe built at $SECONDS s"
for mb in 80 64; do .devbuild/stream_probe $mb 100 > $r/stream-probe-$mb.txt 2>&1; echo "probe $mb rc $? at $SECONDS s"; done
grep "round 1" $r/stream-probe-80.txt | cut -c1-150
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

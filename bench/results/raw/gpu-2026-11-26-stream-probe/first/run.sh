#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q90/run.sh $OUT", carry=[".devbuild-xz-q84", ".devbuild-xz-q90"], kind="nvidia-h100-x1"), 2026-11-26 23:35 UTC, GPU-645757a5
# (1) bench/gpu/stream_probe.cu: K and V read with no attention, the decode kernel's way and others (cp.async at
# 2-8 warps and 2-6 stages, bulk copies, 2 CTAs per SM, 640 short CTAs), at Phi-3-medium B=8 4k's bytes (80 MiB each)
# and Llama-3-8B B=8 4k's (64 MiB). (2) Nsight Compute on each peer of five model shapes (bench/gpu/peer_kernels.sh):
# our plans (kernel v29, the build of .devbuild-xz-q84) beside SDPA's cuDNN, flash and efficient backends, fp16.
set -uo pipefail
out=$1; q=.devbuild-xz-q84; mkdir -p $out/r .devbuild
for f in libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
ncu --version | tail -1 >> $r/machine.txt
nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/stream_probe.cu -o .devbuild/stream_probe && echo "probe built at $SECONDS s"
for mb in 80 64; do .devbuild/stream_probe $mb 100 > $r/stream-probe-$mb.txt 2>&1; echo "probe $mb rc $? at $SECONDS s"; done
cat $r/stream-probe-80.txt
timeout 420 bash bench/gpu/peer_kernels.sh .devbuild-xz-q90/plans.txt $r/ncu --backends cudnn,flash,efficient; echo "ncu rc $? at $SECONDS s"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q91/run.sh $OUT", carry=[".devbuild-xz-q84", ".devbuild-xz-q91"], kind="nvidia-h100-x1"), 2026-11-26 23:38 UTC, GPU in machine.txt
# (1) bench/gpu/stream_probe.cu (second version: a start on any token or on a LeanTile, work per byte or none, plain
# loads as the ceiling) at Phi-3-medium B=8 4k's bytes (80 MiB each of K and V) and Llama-3-8B B=8 4k's (64 MiB);
# (2) the decode kernel on those two shapes in cuda bench (host lengths), kernel v29 (.devbuild-xz-q84's build);
# (3) Nsight Compute on each peer of five model shapes (bench/gpu/peer_kernels.sh), fp16.
set -uo pipefail
out=$1; q=.devbuild-xz-q84; mkdir -p $out/r .devbuild
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
ncu --version | tail -1 >> $r/machine.txt
nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/stream_probe.cu -o .devbuild/stream_probe && echo "probe built at $SECONDS s"
for mb in 80 64; do .devbuild/stream_probe $mb 100 > $r/stream-probe-$mb.txt 2>&1; echo "probe $mb rc $? at $SECONDS s"; done
for m in phi-3-medium llama-3-8b; do
  .devbuild/leanattn cuda bench --model $m --batch 8 --ctx 4096 --lengths host --repeat 100 > $r/bench-$m.txt 2>&1; echo "bench $m rc $? at $SECONDS s"
done
cat $r/stream-probe-80.txt $r/bench-phi-3-medium.txt
timeout 300 bash bench/gpu/peer_kernels.sh .devbuild-xz-q91/plans.txt $r/ncu --backends cudnn,flash > /dev/null; echo "ncu rc $? at $SECONDS s"
cat $r/ncu/kernels.txt | cut -c1-250
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

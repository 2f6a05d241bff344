#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q65/run.sh $OUT", carry=[".devbuild-xz-q65"], kind="nvidia-h100-x1") at 16:56 UTC; .devbuild-xz-q65 held the CLI of 96abc20 (kernel v22). The three host-lengths lines failed (a trace is of a step of run()).
# Falcon-7B B=1 16k: where a one-launch stream-k plan of 16 equal CTAs per output (tile 64, grid 80) spends the
# 1.2 us it runs behind fixed-split's 16 splits and reduce launch: per-CTA traces of both (host lengths), summarised.
set -uo pipefail
out=$1; q=.devbuild-xz-q65; mkdir -p $out .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
f="--model falcon-7b --batch 1 --ctx 16384 --repeat 200"
for lengths in host device; do
  .devbuild/leanattn cuda bench $f --lengths $lengths --strategy fixed-split --splits 16 --trace $out/fs16-$lengths.json | tail -2
  .devbuild/leanattn cuda bench $f --lengths $lengths --strategy stream-k --tile 64 --grid 80 --trace $out/sk80-$lengths.json | tail -2
  .devbuild/leanattn cuda bench $f --lengths $lengths --strategy stream-k --trace $out/sk-$lengths.json | tail -2
done
for t in $out/*.json; do echo "== $(basename $t)"; python3 bench/gpu/trace_summary.py $t; done > $out/summary.txt 2>&1
cat $out/summary.txt
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q137/run.sh $OUT", carry=[".devbuild-xz-q137"])
# A training sweep of live steps (data/calibration/live-shapes.txt: 40 ragged problems of 16-128 requests at 1/16-1 of a
# 1-4k capacity, each also as stream-k's paper plan), both ways of reading the lengths, two rounds each, on HEAD's build
# (kernel v34, the same as the v34 calibration sweeps').
set -uo pipefail
out=$1; q=.devbuild-xz-q137; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  $L cuda bench --shapes $q/live-shapes.txt --repeat 50 -o $r/live-device-$round.jsonl 2> $r/live-device-$round.log; echo "device $round rc $? at $SECONDS s"
  $L cuda bench --shapes $q/live-shapes.txt --repeat 50 --lengths host -o $r/live-host-$round.jsonl 2> $r/live-host-$round.log; echo "host $round rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

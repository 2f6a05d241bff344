#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q158/run.sh $OUT", carry=[".devbuild-xz-q158"], kind="nvidia-h100-x1")
# A fresh H100 times the held-out sweep (data/calibration/heldout-shapes.txt) twice each way, steps of run() and
# host-lengths steps, after the predictions of the models that age the L2 were committed
# (bench/results/calibration-h100-predicted-v34-lag-{live,host}.jsonl).
set -uo pipefail
out=$1; q=.devbuild-xz-q158; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn && chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  timeout 120 $L cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
  timeout 120 $L cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

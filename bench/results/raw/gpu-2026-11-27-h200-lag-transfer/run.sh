#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q159/run.sh $OUT", carry=[".devbuild-xz-q159"], kind="nvidia-h200")
# On an H200 only: the held-out sweep both ways, two rounds each, against the predictions of the models that age the L2,
# committed first (bench/results/calibration-h200-predicted-v34-lag-{live,host}.jsonl, from the H200's device file).
set -uo pipefail
out=$1; q=.devbuild-xz-q159; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
case "$(head -1 $r/machine.txt)" in
  *H200*)
    xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
    export LEANATTN_DATA=$PWD/data
    for round in 1 2; do
      timeout 120 .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
      timeout 120 .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
    done;;
  *) echo "not an H200: nothing to measure";;
esac
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# The H200 check of the v20 fits, predicted first (bench/results/calibration-h200-predicted-v20*.jsonl, committed in
# e2717da): the held-out sweep twice as steps of run() and twice as host-lengths steps.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-p7/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for round in 1 2; do
  .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $out/heldout-$round.jsonl 2> $out/heldout-$round.log
  .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $out/heldout-host-$round.jsonl 2> $out/heldout-host-$round.log
done
cd $out && tar czf logs.tgz *.log && rm -f *.log
echo "done $SECONDS s"

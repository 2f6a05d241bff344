#!/usr/bin/env bash
# The held-out sweep on an H200 (kernel v22), twice per way of reading the lengths, after the H100 fits' predictions
# of it were committed (4ba33a4). Stops at once on any other GPU.
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) ;; *) echo "not an H200: $name"; exit 3;; esac
xz -dc .devbuild-xz-q7/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
r=$out/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $r/machine.txt; date -u >> $r/machine.txt
for round in 1 2; do
  .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $?"
  .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $?"
done
(cd $out && tar czf r.tgz r && rm -rf r)
echo "done $SECONDS s"

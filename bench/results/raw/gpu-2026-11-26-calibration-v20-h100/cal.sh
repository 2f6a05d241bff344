#!/usr/bin/env bash
# The calibration sweeps on kernel v20, both ways of running a step: run() (device lengths, with traces) and host-lengths
# steps; the row-block sweep too (its B=1 half joins the training set, as for the v19 fit).
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-p6/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
bash bench/gpu/calibration.sh .devbuild $out/cal-device
CALIBRATION_FLAGS="--lengths host" bash bench/gpu/calibration.sh .devbuild $out/cal-host
.devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all -o $out/cal-device/row-blocks.jsonl 2> $out/cal-device/row-blocks.log
.devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all --lengths host -o $out/cal-host/row-blocks.jsonl 2> $out/cal-host/row-blocks.log
cat $out/cal-device/machine.txt
cd $out && tar czf cal.tgz cal-device cal-host && rm -rf cal-device cal-host
echo "done $SECONDS s"

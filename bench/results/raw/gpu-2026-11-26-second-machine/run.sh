#!/usr/bin/env bash
# The calibration sweeps, the row-block sweep and the models table's shapes on a second H100 (cuda bench in mirrored
# blocks, the build of 442bb53), both ways of reading the lengths: the same shapes as ../gpu-2026-11-26-harness-abba/,
# so the two machines are two rounds of one sweep. The GPU's UUID names the machine.
set -uo pipefail
out=$1; q=.devbuild-xz-q35; mkdir -p .devbuild $out/cal-device $out/cal-host $out/models
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,serial,driver_version,clocks.max.sm,temperature.gpu --format=csv > $out/machine.txt; date -u >> $out/machine.txt
bash bench/gpu/calibration.sh .devbuild $out/cal-device > $out/cal-device.log 2>&1; echo "cal device rc $?"
CALIBRATION_FLAGS="--lengths host" bash bench/gpu/calibration.sh .devbuild $out/cal-host > $out/cal-host.log 2>&1; echo "cal host rc $?"
for lengths in device host; do
  .devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all --repeat 50 --lengths $lengths -o $out/cal-$lengths/row-blocks.jsonl 2> $out/cal-$lengths/row-blocks.log; echo "row blocks $lengths rc $?"
  .devbuild/leanattn cuda bench --shapes $q/models-shapes.txt --strategy all --repeat 50 --lengths $lengths -o $out/models/models-$lengths.jsonl 2> $out/models/models-$lengths.log; echo "models $lengths rc $?"
done
.devbuild/leanattn cuda bench --model llama-3.1-405b --batch 8 --ctx 4096 --strategy all --lengths host --repeat 100 --format json > $out/probe-405b-b8.json 2>&1
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# cuda bench's first-strategy bias: the old harness (strategies timed one after another) against the new (two blocks per strategy, ABBA; copy measured once),
# side by side on problems whose stream-k plan is no-split's own; then the calibration sweeps, the row-block sweep and
# the models table's shapes again with the new harness, both ways of reading the lengths.
set -uo pipefail
out=$1; q=.devbuild-xz-q31; mkdir -p .devbuild $out/ab $out/cal-device $out/cal-host $out/models
for f in leanattn leanattn-old; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $out/machine.txt; date -u >> $out/machine.txt
for lengths in host device; do
  for round in 1 2; do
    for side in old new; do
      bin=.devbuild/leanattn; [ $side = old ] && bin=.devbuild/leanattn-old
      $bin cuda bench --shapes $q/bias-shapes.txt --strategy all --repeat 100 --lengths $lengths -o $out/ab/$side-$lengths-$round.jsonl 2> $out/ab/$side-$lengths-$round.log; echo "ab $side $lengths $round rc $?"
    done
  done
done
bash bench/gpu/calibration.sh .devbuild $out/cal-device > $out/cal-device.log 2>&1; echo "cal device rc $?"
CALIBRATION_FLAGS="--lengths host" bash bench/gpu/calibration.sh .devbuild $out/cal-host > $out/cal-host.log 2>&1; echo "cal host rc $?"
for lengths in device host; do
  .devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all --repeat 50 --lengths $lengths -o $out/cal-$lengths/row-blocks.jsonl 2> $out/cal-$lengths/row-blocks.log; echo "row blocks $lengths rc $?"
  .devbuild/leanattn cuda bench --shapes $q/models-shapes.txt --strategy all --repeat 50 --lengths $lengths -o $out/models/models-$lengths.jsonl 2> $out/models/models-$lengths.log; echo "models $lengths rc $?"
done
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

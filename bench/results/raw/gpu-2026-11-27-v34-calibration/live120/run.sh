#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q141/run.sh $OUT", carry=[".devbuild-xz-q141"])
# The live-steps training sweep drawn larger (scripts/calibration_shapes.py --seed 3 --count 120 --live; its first 40
# problems are live-shapes.txt's), both ways, two rounds, on HEAD's build (kernel v34).
set -uo pipefail
out=$1; q=.devbuild-xz-q141; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  $L cuda bench --shapes $q/live120-shapes.txt --repeat 50 -o $r/live120-device-$round.jsonl 2> $r/live120-device-$round.log; echo "device $round rc $? at $SECONDS s"
  $L cuda bench --shapes $q/live120-shapes.txt --repeat 50 --lengths host -o $r/live120-host-$round.jsonl 2> $r/live120-host-$round.log; echo "host $round rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

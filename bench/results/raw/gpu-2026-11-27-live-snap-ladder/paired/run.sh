#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q143/run.sh $OUT", carry=[".devbuild-xz-q143"])
# Would a live step that cannot keep its capacity plan's snap run faster on the largest halved snap that stays
# balanced than on the paper's plan it runs today? ladder-shapes.txt: 129 such steps of ragged_live.py's runs (their
# live lengths), each as the paper's plan and at that snap, on the capacity plan's grid; host-lengths steps, two rounds.
set -uo pipefail
out=$1; q=.devbuild-xz-q143; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  .devbuild/leanattn cuda bench --shapes $q/ladder-shapes.txt --repeat 40 --lengths host -o $r/ladder-$round.jsonl 2> $r/ladder-$round.log; echo "round $round rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q152/run.sh $OUT", carry=[".devbuild-xz-q152"], kind="nvidia-h100-x1")
# HEAD da618d8's CLI (kernel v34). bench/gpu/large-tile-shapes.txt (KV heads of 20-128 query rows at output tiles of
# 16, 32, 64 and 128 rows; every strategy), both ways of reading the lengths, twice each (the rounds' noise).
set -uo pipefail
out=$1; q=.devbuild-xz-q152; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
for round in 1 2; do
  timeout 200 .devbuild/leanattn cuda bench --shapes bench/gpu/large-tile-shapes.txt --repeat 50 -o $r/device-$round.jsonl 2> $r/device-$round.log; echo "device $round rc $? at $SECONDS s"
  timeout 200 .devbuild/leanattn cuda bench --shapes bench/gpu/large-tile-shapes.txt --repeat 50 --lengths host -o $r/host-$round.jsonl 2> $r/host-$round.log; echo "host $round rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

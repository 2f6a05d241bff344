#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q156/run.sh $OUT", carry=[".devbuild-xz-q156"], kind="nvidia-h200")
# HEAD f30556c's CLI (auto's larger tiles as committed). On an H200 (its own device file, h200): auto against
# --tile-rows 16 on the rule's problems and the validation problems, interleaved, two rounds, both ways of reading the
# lengths, and every strategy at every tile of the validation problems (the best there is).
set -uo pipefail
out=$1; q=.devbuild-xz-q156; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  for way in device host; do
    for set in problems validation; do
      timeout 100 $L cuda bench --shapes bench/gpu/large-tile-$set.txt --strategy auto --lengths $way --repeat 50 -o $r/$set-auto-$way-$round.jsonl 2> $r/$set-auto-$way-$round.log; echo "$set auto $way $round rc $? at $SECONDS s"
      timeout 100 $L cuda bench --shapes bench/gpu/large-tile-$set.txt --strategy auto --tile-rows 16 --lengths $way --repeat 50 -o $r/$set-auto16-$way-$round.jsonl 2> $r/$set-auto16-$way-$round.log; echo "$set auto16 $way $round rc $? at $SECONDS s"
    done
  done
done
for way in device host; do
  timeout 150 $L cuda bench --shapes bench/gpu/large-tile-validation-sweep.txt --lengths $way --repeat 50 -o $r/validation-sweep-$way.jsonl 2> $r/validation-sweep-$way.log; echo "sweep $way rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

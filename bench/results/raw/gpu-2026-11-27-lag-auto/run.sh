#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q157/run.sh $OUT", carry=[".devbuild-xz-q157"], kind="nvidia-h100-x1")
# The L2's aging in the kernel models (reread_lag_mb), auto's choices measured: `cuda bench --strategy auto` with the
# new kernel files (data/) against those of 0cba21a (old/), interleaved, two rounds, both ways of reading the lengths,
# on the large-tile rule's problems (bench/gpu/large-tile-problems.txt) and the validation problems
# (bench/gpu/large-tile-validation.txt); every strategy at every tile on the rule's shapes (large-tile-shapes.txt),
# steps of run(), for the best there is; fixed-split at 5 splits on Qwen2.5-32B B=1 16k q_len 8.
set -uo pipefail
out=$1; q=.devbuild-xz-q157; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild
rm -rf old && cp -r data old && cp $q/old-kernels/*.json old/kernels/
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  for set in problems validation; do
    for way in device host; do
      for side in new old; do
        data=$PWD/data; [ $side = old ] && data=$PWD/old
        LEANATTN_DATA=$data timeout 100 $L cuda bench --shapes bench/gpu/large-tile-$set.txt --strategy auto --lengths $way --repeat 50 -o $r/$set-$side-$way-$round.jsonl 2> $r/$set-$side-$way-$round.log
        echo "$set $side $way $round rc $? at $SECONDS s"
      done
    done
  done
done
LEANATTN_DATA=$PWD/data timeout 150 $L cuda bench --shapes bench/gpu/large-tile-shapes.txt --lengths device --repeat 50 -o $r/sweep-device.jsonl 2> $r/sweep-device.log; echo "sweep rc $? at $SECONDS s"
for s in 5 32; do
  LEANATTN_DATA=$PWD/data timeout 60 $L cuda bench --batch 1 --heads 40 --kv-heads 8 --head-dim 128 --ctx 16384 --q-len 8 --dtype fp16 --tile-rows 16 --strategy fixed-split --splits $s --repeat 50 --format json -o $r/qwen-fixed-$s.json 2> $r/qwen-fixed-$s.log; echo "fixed $s rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

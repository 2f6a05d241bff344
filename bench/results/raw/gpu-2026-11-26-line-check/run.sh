#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q85/run.sh $OUT", carry=[".devbuild-xz-q84", ".devbuild-xz-q85"], kind="nvidia-h200"), 2026-11-26 21:11 UTC, GPU-6bf87cc9 (an H100 came), 90 s on the machine
# On an H200: the held-out sweep both ways of reading the lengths, two rounds each (kernel v29, HEAD 7d0d042), against
# the predictions committed before (bench/results/calibration-h200-predicted-v27-host-shared.jsonl).
# On an H100: the two model shapes at the 3% line (Falcon-7B B=1 16k, Phi-3-medium B=8 4k), timed again beside SDPA:
# models.py on both models three times and plan_probe three times, interleaved.
set -uo pipefail
out=$1; q=.devbuild-xz-q84; mkdir -p $out/r .devbuild
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in
*H200*)
  for round in 1 2; do
    .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
    .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
  done;;
*)
  for round in 1 2 3; do
    python3 bench/gpu/models.py --out $r/models-$round --models falcon-7b,phi-3-medium --bf16 --reps 200 > $r/models-$round.log 2>&1; echo "models $round rc $? at $SECONDS s"
    python3 bench/gpu/plan_probe.py .devbuild-xz-q85/line-plans.txt --reps 200 > $r/probe-$round.txt 2>&1; echo "probe $round rc $? at $SECONDS s"
  done
  grep -h -E "falcon-7b \| 1 \| 16384 \| 1 |phi-3-medium \| 8 \| 4096 \| 1 " $r/models-*/models.md;;
esac
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

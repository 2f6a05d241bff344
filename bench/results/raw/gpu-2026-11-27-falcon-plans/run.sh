#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q103/run.sh $OUT", carry=[".devbuild-xz-q103"], kind="nvidia-h200")
# Kernel v32 (HEAD 3153e88's build). On an H200: the held-out sweep both ways of reading the lengths, two rounds each,
# against the predictions committed first (f64e449, bench/results/calibration-h200-predicted-v32*.jsonl). On either GPU:
# Falcon-7B B=1 16k, every plan of ours that could reach cuDNN, timed as the models table times (plan_probe.py: graph
# replay after an L2 flush, beside cuDNN in one process), twice, then the two-launch plans with LEANATTN_PDL=0.
set -uo pipefail
out=$1; q=.devbuild-xz-q103; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
case "$(head -1 $r/machine.txt)" in
  *H200*)
    xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
    for round in 1 2; do
      .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
      .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
    done;;
esac
for round in 1 2; do
  timeout 200 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16,bf16 --reps 200 > $r/probe-$round.txt 2> $r/probe-$round.err; echo "probe $round rc $? at $SECONDS s"
done
grep -E "fixed-split|auto" $q/plans.txt | sort -u > $r/two-launch-plans.txt
LEANATTN_PDL=0 timeout 120 python3 bench/gpu/plan_probe.py $r/two-launch-plans.txt --dtypes fp16,bf16 --reps 200 > $r/probe-plain.txt 2> $r/probe-plain.err; echo "plain rc $? at $SECONDS s"
paste -d'\n' $r/probe-1.txt $r/probe-2.txt | sed 's/  */ /g'
echo "== LEANATTN_PDL=0"; sed 's/  */ /g' $r/probe-plain.txt
tail -3 $r/probe-1.err
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q160/run.sh $OUT", carry=[".devbuild-xz-q160"])
# auto's host time on the GPU machine's own CPU: bench_auto_speed of 72db923 (old) and of f32e694 (new), statically
# linked here, alternated ten times each, pinned to one core, on v34's held-out sweep. No GPU work.
set -uo pipefail
out=$1; q=.devbuild-xz-q160; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $r/machine.txt 2>&1; date -u >> $r/machine.txt
lscpu > $r/lscpu.txt 2>&1; nproc >> $r/machine.txt; uptime >> $r/machine.txt; cat $r/machine.txt; grep -E "Model name|MHz|^CPU\(s\)" $r/lscpu.txt
export LEANATTN_DATA=$PWD/data
H=bench/results/raw/gpu-2026-11-27-v34-calibration/cal-device/heldout-1.jsonl
core=$(( $(nproc) - 2 ))
for round in 1 2 3 4 5 6 7 8 9 10; do
  for b in old new; do
    taskset -c $core $q/bench_auto_speed_$b data/kernels/leanattn-h100.json h100-sxm $H > $r/auto-speed-$b-$round.txt 2>&1
    echo "$b round $round rc $? at $SECONDS s: $(grep -E 'bounded \(what' $r/auto-speed-$b-$round.txt)"
  done
done
uptime >> $r/machine.txt; date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

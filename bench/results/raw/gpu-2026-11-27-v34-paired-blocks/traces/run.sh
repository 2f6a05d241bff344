#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q122/run.sh $OUT", carry=[".devbuild-xz-q122"], kind="nvidia-h100-x1"), after q113/run.sh (A) and q117/run-first.sh (B) on the same warm machine
# Per-CTA traces (cuda bench --trace, one traced run per call) of A (v33) and B (v34), Falcon-7B B=1 at 2k and 4k as steps
# of run() with auto's plan (fixed-split, 16 splits), three alternating runs each, summarised by bench/gpu/trace_summary.py.
set -uo pipefail
out=$1; r=$out/r; mkdir -p $r
[ -x .devbuild-a/leanattn ] && [ -x .devbuild-b/leanattn ] || { echo "no .devbuild-a or -b: the earlier calls did not run on this machine"; exit 3; }
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for ctx in 2048 4096; do
  for i in 1 2 3; do
    for v in a b; do
      .devbuild-$v/leanattn cuda bench --model falcon-7b --batch 1 --ctx $ctx --strategy fixed-split --splits 16 --lengths device --repeat 20 --trace $r/trace-$v-$ctx-$i.json > $r/bench-$v-$ctx-$i.txt 2>&1
    done
  done
  for v in a b; do echo "== $v $ctx"; python3 bench/gpu/trace_summary.py $r/trace-$v-$ctx-*.json 2>&1 | head -60; done
done > $r/summary.txt 2>&1
cat $r/summary.txt | head -150
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q72/run.sh $OUT", carry=[".devbuild-xz-q72"], kind="nvidia-h100-x1") at 18:07 UTC; .devbuild-xz-q72 held the CLI of kernel v27 with the traced host-lengths kernels (committed after 8514e10).
# Host-lengths steps traced (the traced table kernels, this build), beside steps of run(): Falcon-7B B=1 16k's
# one-launch plan (stream-k, LeanTiles of 64, 16 CTAs per output: shared merges), its fixed-split at 16 splits and
# the aligned plan, Llama-3.1-405B B=1 16k (grid 128: shared merges) and Phi-3-medium B=8 4k; trace_summary.py on each.
# Then the traced and untimed paths validated on three shapes as host-lengths steps.
set -uo pipefail
out=$1; q=.devbuild-xz-q72; mkdir -p $out/traces .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
f="--repeat 100"
for lengths in host device; do
  .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy stream-k --tile 64 --grid 80 $f --lengths $lengths --trace $out/traces/falcon-sk80-$lengths.json | tail -1
  .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy fixed-split --splits 16 $f --lengths $lengths --trace $out/traces/falcon-fs16-$lengths.json | tail -1
  .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy stream-k $f --lengths $lengths --trace $out/traces/falcon-sk-$lengths.json | tail -1
  .devbuild/leanattn cuda bench --model llama-3.1-405b --batch 1 --ctx 16384 --strategy stream-k $f --lengths $lengths --trace $out/traces/405b-sk-$lengths.json | tail -1
  .devbuild/leanattn cuda bench --model phi-3-medium --batch 8 --ctx 4096 --strategy stream-k $f --lengths $lengths --trace $out/traces/phi3-sk-$lengths.json | tail -1
done 2> $out/bench.err
for t in $out/traces/*.json; do echo "== $(basename $t)"; python3 bench/gpu/trace_summary.py $t; done > $out/traces/summary.txt 2>&1
cat $out/traces/summary.txt
for s in "--model falcon-7b --batch 1 --ctx 16384 --tile 64 --grid 80" "--model llama-3.1-405b --batch 2 --ctx 16384,9000 --layout paged" "--model phi-3-medium --batch 3 --ctx 4096,100,2000 --q-len 4"; do
  .devbuild/leanattn cuda validate $s --strategy stream-k --lengths host > /dev/null 2>> $out/validate.err || echo "FAILED: $s" >> $out/validate.txt
done; echo "validation: $(cat $out/validate.txt 2>/dev/null | wc -l) failures at $SECONDS s"
xz -9 $out/traces/*.json
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

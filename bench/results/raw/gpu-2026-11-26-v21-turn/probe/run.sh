#!/usr/bin/env bash
# Diagnosis of the many-row shapes (issue: auto slower than SDPA on Qwen2.5-7B / Llama-3.1-405B / Falcon-7B B=1 16k):
# per-CTA traces of stream-k and timings over grids, tiles and tile rows.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-q1/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for m in qwen2.5-7b llama-3.1-405b falcon-7b llama-3-8b; do
  $L cuda bench --model $m --ctx 16384 --strategy stream-k --repeat 50 --trace $out/trace-$m.json --format json -o $out/trace-$m.bench.json 2>> $out/err.log
done
{
for m in qwen2.5-7b llama-3.1-405b llama-3-8b; do
  echo "--model $m --ctx 16384 --lengths host"
  for g in 128 120 100 66 33; do echo "--model $m --ctx 16384 --strategy stream-k --grid $g --lengths host"; done
  echo "--model $m --ctx 16384 --tile 256 --lengths host"
  echo "--model $m --ctx 16384 --tile 64 --lengths host"
  for s in 8 16 24 32 48; do echo "--model $m --ctx 16384 --strategy fixed-split --splits $s --lengths host"; done
done
for r in 16 32 48 80; do echo "--model falcon-7b --ctx 16384 --tile-rows $r --lengths host"; echo "--model falcon-7b --batch 8 --ctx 4096 --tile-rows $r --lengths host"; done
for g in 132 120 100 80 60; do echo "--model falcon-7b --ctx 16384 --strategy stream-k --grid $g --lengths host"; done
} > $out/shapes.txt
$L cuda bench --shapes $out/shapes.txt --repeat 50 -o $out/sweep.jsonl 2>> $out/err.log; echo "sweep rc $?"
tail -3 $out/err.log
echo "done $SECONDS s"

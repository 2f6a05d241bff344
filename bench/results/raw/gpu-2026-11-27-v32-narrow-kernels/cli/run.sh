#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q99/run.sh $OUT", carry=[".devbuild-xz-q99", ".devbuild-xz-q84/leanattn.xz"], kind="nvidia-h100-x1"), 2026-11-27 00:56 UTC, GPU-f1a2c2e9 (machine.txt)
# Kernel v32 (narrow streams as a template parameter: separate kernels for head dim 128 at 2-16 rows, the others v29's
# code again), first call (its CLI; the library travels in the next, .devbuild-xz-q100): validation both ways, racecheck
# on a narrow problem, ab.sh against v29 (.devbuild-xz-q84's CLI) on the plans v31's run-time stride slowed, the narrow
# ones and head dim 64.
set -uo pipefail
out=$1; q=.devbuild-xz-q99; mkdir -p $out/r .devbuild .devbuild-old
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc .devbuild-xz-q84/leanattn.xz > .devbuild-old/leanattn; chmod +x .devbuild-old/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
shapes=("--model llama-3-8b --batch 8 --ctx 4096" "--model phi-3-medium --batch 8 --ctx 4096 --q-len 4 --dtype bf16"
  "--model llama-3-8b --batch 8 --ctx 4096,4000,3900,4096,4096,3800,4096,4000 --layout paged --block-size 16"
  "--model qwen2.5-7b --batch 16 --ctx 4096 --layout token-major" "--model llama-3.1-405b --batch 8 --ctx 4096 --q-len 4"
  "--batch 8 --heads 32 --kv-heads 8 --head-dim 64 --ctx 4096")
for lengths in host device; do
  for f in "${shapes[@]}"; do
    # shellcheck disable=SC2086
    .devbuild/leanattn cuda validate $f --lengths $lengths >> $r/validate.txt 2>&1; echo "validate [$f] $lengths rc $?" | tee -a $r/validate-rc.txt
  done
done
compute-sanitizer --tool racecheck .devbuild/leanattn cuda validate --model llama-3-8b --batch 8 --ctx 1000 --strategy no-split --lengths host > $r/sanitize-racecheck.txt 2>&1; echo "racecheck rc $? $(grep -h 'RACECHECK SUMMARY' $r/sanitize-racecheck.txt | tail -1)"
bash bench/gpu/ab.sh .devbuild-old .devbuild $r/ab-all --shapes $q/ab-shapes.txt > /dev/null 2>&1; echo "ab all rc $? at $SECONDS s"
grep -v "plans:" $r/ab-all/ab.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

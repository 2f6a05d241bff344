#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q95/run.sh $OUT", carry=[".devbuild-xz-q95", ".devbuild-xz-q84/leanattn.xz"], kind="nvidia-h100-x1"), 2026-11-27 00:09 UTC, GPU in machine.txt; the build: the rule of narrow_streams_pay first written (any one-warp tile, row blocks too, head dims 64 and 96), its stride a run-time value at every head dim
# Kernel v31 (narrow streams: no-split's whole-output CTAs on 40-75% of the SMs read K and V with 4 of their 8 warps,
# by core's narrow_streams_pay), first call: validation (the narrow plans of every kind, both ways of reading lengths,
# three layouts), compute-sanitizer on two narrow problems, the Python package's GPU tests, then ab.sh against v29
# (.devbuild-xz-q84's CLI): every strategy on the model shapes and the v31 sweep's, and auto on every model at B=8 4k.
set -uo pipefail
out=$1; q=.devbuild-xz-q95; mkdir -p $out/r .devbuild .devbuild-old
xz -dc $q/leanattn.xz > .devbuild/leanattn; xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so; chmod +x .devbuild/leanattn
xz -dc .devbuild-xz-q84/leanattn.xz > .devbuild-old/leanattn; chmod +x .devbuild-old/leanattn
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
shapes=("--model llama-3-8b --batch 8 --ctx 4096" "--model phi-3-medium --batch 8 --ctx 4096 --q-len 4"
  "--model qwen2.5-7b --batch 16 --ctx 4096 --dtype bf16" "--model llama-3-8b --batch 8 --ctx 4096,4000,3900,4096,4096,3800,4096,4000 --layout paged --block-size 16"
  "--model falcon-7b --batch 16 --ctx 2048" "--model phi-3-mini --batch 2 --ctx 4096" "--model llama-3-8b --batch 10 --ctx 3000 --layout token-major --dtype bf16")
for lengths in host device; do
  for f in "${shapes[@]}"; do
    # shellcheck disable=SC2086
    .devbuild/leanattn cuda validate $f --lengths $lengths >> $r/validate.txt 2>&1; echo "validate [$f] $lengths rc $?" | tee -a $r/validate-rc.txt
  done
done
for tool in racecheck memcheck; do
  compute-sanitizer --tool $tool .devbuild/leanattn cuda validate --model llama-3-8b --batch 8 --ctx 1000 --strategy no-split --lengths host > $r/sanitize-$tool.txt 2>&1; echo "$tool rc $? $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $r/sanitize-$tool.txt | tail -1)"
done
timeout 240 python3 -m pytest -q python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s: $(tail -1 $r/pytest.txt)"
bash bench/gpu/ab.sh .devbuild-old .devbuild $r/ab-all --shapes $q/sweep-shapes.txt > /dev/null 2>&1; echo "ab all rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-old .devbuild $r/ab-auto --shapes $q/models-b8.txt --strategy auto > /dev/null 2>&1; echo "ab auto rc $? at $SECONDS s"
grep -v "plans:" $r/ab-all/ab.txt | awk '$2=="no-split" || NR==1'
cat $r/ab-auto/ab.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

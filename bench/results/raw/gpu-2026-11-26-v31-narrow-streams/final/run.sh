#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q96/run.sh $OUT", carry=[".devbuild-xz-q96", ".devbuild-xz-q84/leanattn.xz"], kind="nvidia-h100-x1"), 2026-11-27 00:27 UTC, GPU-87e990eb (machine.txt); the build: this commit but for the schedule JSON key narrow_streams and the Python strategy check (host side only)
# Kernel v31 as committed (narrow streams only at head dim 128, one tile per KV head; the stride a constant elsewhere):
# validation both ways, compute-sanitizer on a narrow problem, ab.sh against v29 (.devbuild-xz-q84's CLI) on the shapes
# the first build moved the wrong way and the narrow ones, auto on every model at B=8 4k, the calibration sweeps both
# ways (records say which runs were read with half the warps), then models.py on every model (fp16 and bf16).
set -uo pipefail
out=$1; q=.devbuild-xz-q96; mkdir -p $out/r .devbuild .devbuild-old
xz -dc $q/leanattn.xz > .devbuild/leanattn; xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so; chmod +x .devbuild/leanattn
xz -dc .devbuild-xz-q84/leanattn.xz > .devbuild-old/leanattn; chmod +x .devbuild-old/leanattn
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
shapes=("--model llama-3-8b --batch 8 --ctx 4096" "--model phi-3-medium --batch 8 --ctx 4096 --q-len 4 --dtype bf16"
  "--model llama-3-8b --batch 8 --ctx 4096,4000,3900,4096,4096,3800,4096,4000 --layout paged --block-size 16"
  "--model qwen2.5-7b --batch 8 --ctx 4096 --q-len 4" "--batch 8 --heads 32 --kv-heads 8 --head-dim 64 --ctx 4096")
for lengths in host device; do
  for f in "${shapes[@]}"; do
    # shellcheck disable=SC2086
    .devbuild/leanattn cuda validate $f --lengths $lengths >> $r/validate.txt 2>&1; echo "validate [$f] $lengths rc $?" | tee -a $r/validate-rc.txt
  done
done
compute-sanitizer --tool racecheck .devbuild/leanattn cuda validate --model llama-3-8b --batch 8 --ctx 1000 --strategy no-split --lengths host > $r/sanitize-racecheck.txt 2>&1; echo "racecheck rc $? $(grep -h 'RACECHECK SUMMARY' $r/sanitize-racecheck.txt | tail -1)"
bash bench/gpu/ab.sh .devbuild-old .devbuild $r/ab-all --shapes $q/ab-shapes.txt > /dev/null 2>&1; echo "ab all rc $? at $SECONDS s"
grep -v "plans:" $r/ab-all/ab.txt
bash bench/gpu/ab.sh .devbuild-old .devbuild $r/ab-auto --shapes $q/models-b8.txt --strategy auto > /dev/null 2>&1; echo "ab auto rc $? at $SECONDS s"
awk '$NF+0 > 0 && ($NF < 0.99 || $NF > 1.01)' $r/ab-auto/ab.txt
bash bench/gpu/calibration.sh .devbuild $r/cal-device > $r/cal-device.log 2>&1; echo "cal device rc $? at $SECONDS s"
CALIBRATION_FLAGS="--lengths host" bash bench/gpu/calibration.sh .devbuild $r/cal-host > $r/cal-host.log 2>&1; echo "cal host rc $? at $SECONDS s"
timeout $((560 - SECONDS)) python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -3 $r/models.log
grep -E "phi-3-medium \| 8 \| 4096 \| 1 |llama-3-8b \| 8 \| 4096 \| 1 |falcon-7b \| 1 \| 16384 \| 1 " $r/models/models.md
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q97/run.sh $OUT", carry=[".devbuild-xz-q97"], kind="nvidia-h100-x1"), 2026-11-27 00:35 UTC, GPU-9eaabf72 (machine.txt)
# Kernel v31 at HEAD 9dc7ffd (its library): the Python package's tests on the GPU machine's torch, then models.py on
# every model twice (fp16 and bf16, mirrored blocks): whether "behind SDPA's best beyond 3% on none" holds again.
set -uo pipefail
out=$1; q=.devbuild-xz-q97; mkdir -p $out/r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
timeout 150 python3 -m pytest -q python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s: $(tail -1 $r/pytest.txt)"; grep FAILED $r/pytest.txt
for round in 1 2; do
  timeout 200 python3 bench/gpu/models.py --bf16 --out $r/models-$round > $r/models-$round.log 2>&1; echo "models $round rc $? at $SECONDS s"; tail -3 $r/models-$round.log | head -2
  grep -E "phi-3-medium \| 8 \| 4096 \| 1 |falcon-7b \| 1 \| 16384 \| 1 " $r/models-$round/models.md
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

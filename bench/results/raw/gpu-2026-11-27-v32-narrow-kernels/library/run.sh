#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q100/run.sh $OUT", carry=[".devbuild-xz-q100"], kind="nvidia-h100-x1"), 2026-11-27 00:57 UTC, the same GPU-f1a2c2e9 (machine.txt), right after ../cli
# Kernel v32, second call (its library; the CLI's checks were .devbuild-xz-q99's): the Python package's tests on the GPU
# machine's torch, then models.py on every model (fp16 and bf16, mirrored blocks).
set -uo pipefail
out=$1; q=.devbuild-xz-q100; mkdir -p $out/r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
timeout 150 python3 -m pytest -q python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s: $(tail -1 $r/pytest.txt)"; grep FAILED $r/pytest.txt
timeout $((560 - SECONDS)) python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -3 $r/models.log | head -2
grep -E "phi-3-medium \| 8 \| 4096 \| 1 |falcon-7b \| 1 \| 16384 \| 1 |llama-3.1-405b \| 8 \| 4096 \| 4 " $r/models/models.md
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

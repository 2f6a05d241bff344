#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q118/run.sh $OUT", carry=[".devbuild-xz-q118/libleanattn.so.xz", ".devbuild-xz-q118/run.sh"], kind="nvidia-h100-x1")
# Kernel v34 (paired blocks), second call: models.py on every model (fp16 and bf16, mirrored blocks) beside SDPA's
# backends, a second run after the first (library/ in this folder), on whichever H100 this is.
set -uo pipefail
out=$1; q=.devbuild-xz-q118; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 400 python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $r/models.log
grep -E "falcon-7b \| 1 \| 16384 \| 1 |phi-3-medium \| 8 \| 4096 \| 1 " $r/models/models.md
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

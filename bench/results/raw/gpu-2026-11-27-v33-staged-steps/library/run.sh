#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q110/run.sh $OUT", carry=[".devbuild-xz-q110"], kind="nvidia-h100-x1")
# Staged steps, third call: the branch's library: the Python GPU tests (the staged graph among them), then models.py on
# every model (fp16 and bf16, mirrored blocks) with the new auto-staged column beside auto (host lengths) and auto-device.
set -uo pipefail
out=$1; q=.devbuild-xz-q110; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 200 python3 -m pytest -q python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s: $(tail -1 $r/pytest.txt)"; grep -E "FAILED|Error" $r/pytest.txt | head
timeout $((570 - SECONDS)) python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $r/models.log
grep -E "falcon-7b \| 1 \| 16384 \| 1 |phi-3-medium \| 8 \| 4096 \| 1 " $r/models/models.md
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Every model beside SDPA on kernel v20 (499ede5): leanattn's plans as host-lengths steps, auto also reading its lengths
# on the device; fp16 and bf16.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-p9/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -4 $out/models.log
echo "done $SECONDS s"

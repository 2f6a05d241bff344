#!/usr/bin/env bash
# Every model beside SDPA again with auto's new candidate (k CTAs on every output): leanattn and libleanattn.so
# of HEAD (kernel v19 unchanged), the models table's auto column is the new choice.
set -uo pipefail
out=$1; mkdir -p $out
mkdir -p .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz6/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -5 $out/models.log; echo "done $SECONDS s"

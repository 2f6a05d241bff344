#!/usr/bin/env bash
# bench/gpu/plan_probe.py --variants: the model shapes still behind SDPA (and 405B on 8-row tiles) timed as models.py times
# every peer, then synchronised after every repetition and after a write-only flush, beside SDPA's cuDNN backend.
set -o pipefail
out=$1; q=.devbuild-xz-q40; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
python3 bench/gpu/plan_probe.py $q/plans.txt --variants --dtypes fp16 > $out/probe.txt 2> $out/probe.err; echo "probe rc $?"
cat $out/probe.txt; tail -3 $out/probe.err

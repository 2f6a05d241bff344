#!/usr/bin/env bash
# bench/gpu/plan_probe.py: Phi-3-medium B=8 4k on stream-k grids 96-160, Falcon-7B B=1 16k stream-k grids (DecodePlan takes grid since eb51c1a).
set -o pipefail
out=$1; q=.devbuild-xz-q48; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 > $out/probe-pdl1.txt 2> $out/probe.err; echo "rc $?"
true
true
date -u >> $out/machine.txt
cat $out/probe-pdl1.txt $out/probe-pdl0.txt; tail -3 $out/probe.err

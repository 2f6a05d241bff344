#!/usr/bin/env bash
# Does programmatic dependent launch make the fixed-split step pay for the flush's read half? plan_probe.py --variants
# with the reduce launched through PDL (the default) and plainly (LEANATTN_PDL=0), one machine.
set -o pipefail
out=$1; q=.devbuild-xz-q41; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
for pdl in 1 0 1 0; do
  echo "LEANATTN_PDL=$pdl" >> $out/probe.txt
  LEANATTN_PDL=$pdl python3 bench/gpu/plan_probe.py $q/plans.txt --variants --dtypes fp16 >> $out/probe.txt 2>> $out/probe.err; echo "pdl $pdl rc $?"
done
cat $out/probe.txt; tail -3 $out/probe.err

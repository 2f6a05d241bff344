#!/usr/bin/env bash
# bench/gpu/decode_loop.py: attention inside a loop of layers (a weight GEMM, then the step), with the reduce launched
# through PDL (default) and plainly (LEANATTN_PDL=0), alternating, beside SDPA's cuDNN backend.
set -o pipefail
out=$1; q=.devbuild-xz-q43; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
for pdl in 1 0 1 0; do
  echo "LEANATTN_PDL=$pdl" >> $out/loop.txt
  LEANATTN_PDL=$pdl python3 bench/gpu/decode_loop.py $q/plans.txt --layers 8 >> $out/loop.txt 2>> $out/loop.err; echo "pdl $pdl rc $?"
done
cat $out/loop.txt; tail -3 $out/loop.err

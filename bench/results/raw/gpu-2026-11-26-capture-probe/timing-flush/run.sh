#!/usr/bin/env bash
# Which part of timing.py's method moves the one-wave fixed-split steps, the flush resized too (bench/gpu/timing_probe.py)?
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-q24/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
timeout 150 python3 bench/gpu/timing_probe.py > $out/timing.txt 2>&1; echo "rc $?"; cat $out/timing.txt
bash bench/gpu/pack_out.sh $out

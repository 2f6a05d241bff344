#!/usr/bin/env bash
# Does where the Python step's buffers sit move its time (bench/gpu/address_probe.py)?
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-q21/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
timeout 120 python3 bench/gpu/address_probe.py > $out/address.txt 2>&1; echo "rc $?"; cat $out/address.txt
bash bench/gpu/pack_out.sh $out

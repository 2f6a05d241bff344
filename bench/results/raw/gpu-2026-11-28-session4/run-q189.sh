#!/usr/bin/env bash
# 2026-11-28: two GPUs of one host. Tensors on the GPU that is not current (cuda:1 while 0 is, and the other way round),
# every kind of step and strategy, a graph captured on cuda:1, tensors split over two GPUs refused, the caller's
# current GPU left as it was (python/tests/test_two_gpus.py); then every Python test on that host.
set -uo pipefail
out=$1; q=.devbuild-xz-q189; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader > $r/machine.txt; nvidia-smi topo -m >> $r/machine.txt 2>&1; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 300 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_two_gpus.py > $r/two-gpus.txt 2>&1; echo "two gpus rc $? at $SECONDS s"; tail -3 $r/two-gpus.txt; grep -B5 -A30 "^___" $r/two-gpus.txt | head -80
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 200 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/test-gpu.txt 2>&1; echo "python tests rc $? at $SECONDS s"; tail -2 $r/test-gpu.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

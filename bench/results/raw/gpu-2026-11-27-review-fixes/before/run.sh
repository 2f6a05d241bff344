#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q165/run.sh $OUT", carry=[".devbuild-xz-q165"], kind="nvidia-h100-x1")
# After the review fixes of 2026-11-27 evening: the C++ API's GPU tests (test_cuda), every Python test with the GPU (the
# plan cache per thread and stream, the library's version script), and what a device-path step leaves in rows that see
# no token (short_lengths.py).
set -uo pipefail
out=$1; q=.devbuild-xz-q165; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/libleanattn.so.xz > /tmp/libleanattn.so && xz -dc $q/test_cuda.xz > /tmp/test_cuda && chmod +x /tmp/test_cuda
export LEANATTN_LIBRARY=/tmp/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 300 /tmp/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
timeout 300 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt
timeout 120 python3 $q/short_lengths.py > $r/short_lengths.txt 2>&1; echo "short_lengths rc $?"; cat $r/short_lengths.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

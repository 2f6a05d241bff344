#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q147/run.sh $OUT", carry=[".devbuild-xz-q147"])
# HEAD's build (the aligned search re-describing only the CTAs whose starts moved: the same plans): test_cuda and
# Python's tests on the GPU.
set -uo pipefail
out=$1; q=.devbuild-xz-q147; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 240 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -1 $r/pytest.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

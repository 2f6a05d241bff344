#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q145/run.sh $OUT", carry=[".devbuild-xz-q145"])
# HEAD 7e76d13's library (auto for a capacity weighed with bounds; the same choices): Python's tests on the GPU.
set -uo pipefail
out=$1; q=.devbuild-xz-q145; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/lib.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 240 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -1 $r/pytest.txt
bash bench/gpu/pack_out.sh $out

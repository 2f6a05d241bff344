#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q124/run.sh $OUT", carry=[".devbuild-xz-q124"]), right after q123/run.sh
# HEAD 9ae5fed's library: Python's tests on the GPU (decode() and DecodePlan now default to strategy="auto").
set -uo pipefail
out=$1; q=.devbuild-xz-q124; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 300 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt
bash bench/gpu/pack_out.sh $out

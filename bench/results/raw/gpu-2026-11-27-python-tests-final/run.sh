#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q142/run.sh $OUT", carry=[".devbuild-xz-q142"])
# HEAD a0a2237's CLI and library: Python's tests on the GPU (reports for a capacity, the refitted steps-of-run() model).
set -uo pipefail
out=$1; q=.devbuild-xz-q142; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 240 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $r/pytest.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

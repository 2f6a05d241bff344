#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q174/run.sh $OUT", carry=[".devbuild-xz-q174"], kind="nvidia-h100-x1")
# 2026-11-28: the final check of the session's changes (out overlap through two dimensions, staging's alignment check,
# calibrate, the Python messages): every Python test with the GPU, then bench/gpu/check.sh (test_cuda: q175).
set -uo pipefail
out=$1; q=.devbuild-xz-q174; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt
timeout 330 bash bench/gpu/check.sh .devbuild $out/check > $r/check.log 2>&1; echo "check rc $? at $SECONDS s"; tail -14 $r/check.log
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

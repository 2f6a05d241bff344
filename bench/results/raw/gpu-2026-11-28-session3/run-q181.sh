#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q181/run.sh $OUT", carry=[".devbuild-xz-q181"], kind="nvidia-h100-x1")
# 2026-11-28 (third session of the day): empty slots (length 0) in every kind of step. Every Python test with the GPU,
# test_cuda, and memcheck on the empty-slot tests (a step of run(), host-lengths and staged steps) and on refusals.
set -uo pipefail
out=$1; q=.devbuild-xz-q181; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt
timeout 300 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "a request that holds no token*" > $r/memcheck-empty.txt 2>&1; echo "memcheck empty rc $?"; tail -1 $r/memcheck-empty.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "a host-lengths step, and a staged one*" > $r/memcheck-host-lengths.txt 2>&1; echo "memcheck host-lengths rc $?"; tail -1 $r/memcheck-host-lengths.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py -k empty_slot > $r/memcheck-pytest-empty.txt 2>&1; echo "memcheck pytest empty rc $?"; tail -2 $r/memcheck-pytest-empty.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

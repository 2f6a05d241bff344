#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q187/run.sh $OUT", carry=[".devbuild-xz-q187"], kind="nvidia-h100-x1")
# 2026-11-28 (third session of the day): the fixes of a review of every kind of step (max.NaN, one-row tiles of
# q_len > 1, the snap kept in host-lengths and staged steps where the GPU cannot hold the grid, staging checked against
# the inputs). test_cuda, every Python test with the GPU, memcheck on the NaN and one-row tests.
set -uo pipefail
out=$1; q=.devbuild-xz-q187; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 120 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt; grep -B2 -A12 "FAILED" $r/test_cuda.txt | head -60
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $r/pytest.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "a NaN in a KV head*" > $r/memcheck-nan.txt 2>&1; echo "memcheck nan rc $?"; grep -h "All tests\|ERROR SUMMARY" $r/memcheck-nan.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "one-row output tiles*" > $r/memcheck-one-row.txt 2>&1; echo "memcheck one-row rc $?"; grep -h "All tests\|ERROR SUMMARY" $r/memcheck-one-row.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

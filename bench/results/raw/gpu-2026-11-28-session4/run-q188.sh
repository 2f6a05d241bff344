#!/usr/bin/env bash
# 2026-11-28 (fourth session of the day): a hostile-input review's fixes. test_cuda whole (the new ragged-parts test
# among it), every Python test with the GPU (copies refused, version counters, staging checks), memcheck on the ragged
# parts test (nothing read before k) and on the empty-request and host-lengths tests.
set -uo pipefail
out=$1; q=.devbuild-xz-q188; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 150 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt; grep -B2 -A14 "FAILED" $r/test_cuda.txt | head -60
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt; grep -A20 "^___" $r/pytest.txt | head -40
for t in "a ragged part that starts before row 0*" "a request that holds no token*" "a host-lengths step, and a staged one*"; do
  n=$(echo "$t" | cut -c1-12 | tr ' ' '-')
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "$t" > $r/memcheck-$n.txt 2>&1; echo "memcheck $n rc $? at $SECONDS s"; grep -h "All tests\|ERROR SUMMARY\|test cases" $r/memcheck-$n.txt | head -3
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

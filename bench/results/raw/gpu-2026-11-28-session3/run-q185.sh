#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q185/run.sh $OUT", carry=[".devbuild-xz-q185"], kind="nvidia-h100-x1")
# 2026-11-28 (third session of the day): a NaN l stays NaN in the kernels' store (l != 0 where it was l > 0, which wrote
# 0 and -inf for rows with a NaN among their inputs); the C ABI's live-plan registry. Every Python test with the GPU,
# test_cuda (its new NaN test: a step of run() and a host-lengths step, every strategy), memcheck on the NaN test.
set -uo pipefail
out=$1; q=.devbuild-xz-q185; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 120 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $r/pytest.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "a NaN in one KV head*" > $r/memcheck-nan.txt 2>&1; echo "memcheck nan rc $?"; grep -h "All tests\|ERROR SUMMARY" $r/memcheck-nan.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

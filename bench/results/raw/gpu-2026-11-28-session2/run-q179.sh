#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q179/run.sh $OUT", carry=[".devbuild-xz-q179"], kind="nvidia-h100-x1")
# 2026-11-28 (second session of the day), the final check at cf2b7cd: the overlap checks' last changes (a block table's
# range to its last partial block, rows meeting through three dimensions), the C ABI's messages. Every Python test with
# the GPU, test_cuda, and memcheck on its refusals and on in place (the CLI's validations ran at e70dd16: run-q177.sh;
# the tree and three binaries would not fit one call).
set -uo pipefail
out=$1; q=.devbuild-xz-q179; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt
timeout 300 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "run() refuses bad input*" > $r/memcheck-refusals.txt 2>&1; echo "memcheck refusals rc $?"; tail -1 $r/memcheck-refusals.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "out may be q itself*" > $r/memcheck-in-place.txt 2>&1; echo "memcheck in place rc $?"; tail -1 $r/memcheck-in-place.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# 2026-11-28: test_cuda after the review's refactor of its step helper (the ragged-parts and NaN tests), with memcheck
# on the ragged-parts test.
set -uo pipefail
out=$1; q=.devbuild-xz-q190; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/test_cuda.xz > .devbuild/test_cuda; chmod +x .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data
timeout 150 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $?"; tail -2 $r/test_cuda.txt; grep -A12 FAILED $r/test_cuda.txt | head -30
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 .devbuild/test_cuda "a ragged part that starts before row 0*" > $r/memcheck-ragged.txt 2>&1; echo "memcheck rc $?"; grep -h "All tests\|ERROR SUMMARY" $r/memcheck-ragged.txt
bash bench/gpu/pack_out.sh $out

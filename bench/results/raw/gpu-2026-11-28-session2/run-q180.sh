#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q180/run.sh $OUT", carry=[".devbuild-xz-q180"], kind="nvidia-h100-x1")
# 2026-11-28 (second session of the day): test_cuda after its poison-run-read-back steps became one helper (run_to_host).
set -uo pipefail
out=$1; q=.devbuild-xz-q180; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/test_cuda.xz > /tmp/test_cuda && chmod +x /tmp/test_cuda
timeout 300 /tmp/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/test_cuda "run() refuses bad input*" > $r/memcheck-refusals.txt 2>&1; echo "memcheck refusals rc $?"; tail -1 $r/memcheck-refusals.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/test_cuda "out may be q itself*" > $r/memcheck-in-place.txt 2>&1; echo "memcheck in place rc $?"; tail -1 $r/memcheck-in-place.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

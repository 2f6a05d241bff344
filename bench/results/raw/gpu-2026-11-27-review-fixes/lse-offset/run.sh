#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q171/run.sh $OUT", carry=[".devbuild-xz-q171"], kind="nvidia-h100-x1")
# test_cuda after the prologue indexes the LSE with lse_offset (the same arithmetic, the shared helper), with
# compute-sanitizer memcheck on the empty-request test that writes those rows.
set -uo pipefail
out=$1; q=.devbuild-xz-q171; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/test_cuda.xz > /tmp/test_cuda && chmod +x /tmp/test_cuda
timeout 300 /tmp/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $?"; tail -2 $r/test_cuda.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/test_cuda "a request that holds no token*" > $r/memcheck.txt 2>&1; echo "memcheck rc $?"; tail -1 $r/memcheck.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q162/run.sh $OUT", carry=[".devbuild-xz-q162"], kind="nvidia-h100-x1")
# After the C ABI's changes of 2026-11-27 evening (the limits read once per call, auto's weighing estimated before it
# runs, a CPU plan with auto made where it was weighed): bench/gpu/check.sh on the GPU (test_cuda, the GPU pytest,
# every layout, kernel path and model validated, auto's host time, compute-sanitizer on two problems).
# test_cuda and bench_cuda_run_overhead stay home (the carry's room: cuda/ is unchanged); their steps fail alone.
set -uo pipefail
out=$1; q=.devbuild-xz-q162; r=$out/r; mkdir -p $r .devbuild
for f in leanattn libleanattn.so bench_auto_speed; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 500 bash bench/gpu/check.sh .devbuild $r/check > $r/check.txt 2>&1; echo "check rc $? at $SECONDS s"; tail -14 $r/check.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

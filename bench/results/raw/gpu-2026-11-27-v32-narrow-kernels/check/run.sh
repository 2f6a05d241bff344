#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q101/run.sh $OUT", carry=[".devbuild-xz-q99", ".devbuild-xz-q100", ".devbuild-xz-q101"], kind="nvidia-h100-x1"), 2026-11-27 01:20 UTC, GPU in machine.txt
# Kernel v32 (the CLI of .devbuild-xz-q99 and the library of .devbuild-xz-q100, this HEAD's code): bench/gpu/check.sh
# as host-lengths steps, then as steps of run(): every cache layout, every kernel path (head dims 64-256, 1-1,024 rows,
# q_len 1-8), every model, the Python GPU tests, memcheck/racecheck/synccheck (test_cuda and the run() overhead bench
# do not travel: their binaries would carry the kernels twice more).
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
xz -dc .devbuild-xz-q99/leanattn.xz > .devbuild/leanattn; xz -dc .devbuild-xz-q100/libleanattn.so.xz > .devbuild/libleanattn.so; chmod +x .devbuild/leanattn
export PYTHONPATH=$PWD/python
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
timeout 280 bash bench/gpu/check.sh .devbuild $r/check-host --lengths host > /dev/null 2>&1; echo "check host rc $? at $SECONDS s"; cat $r/check-host/summary.txt
timeout $((570 - SECONDS)) bash bench/gpu/check.sh .devbuild $r/check-device > /dev/null 2>&1; echo "check device rc $? at $SECONDS s"; cat $r/check-device/summary.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

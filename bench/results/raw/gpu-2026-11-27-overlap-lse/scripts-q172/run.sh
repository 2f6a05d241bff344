#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q172/run.sh $OUT", carry=[".devbuild-xz-q172"], kind="nvidia-h100-x1")
# 2026-11-27 late: after the overlap checks (out rows, out/lse on q, K, V; in place allowed; staging checks no
# output), the LSE in the pass rule, and the CPU executor's masking: what a GPU step does with a non-finite V among the new tokens (masked_v.py), then bench/gpu/check.sh (test_cuda: .devbuild-xz-q173, the next call).
set -uo pipefail
out=$1; q=.devbuild-xz-q172; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 90 python3 $q/masked_v.py > $r/masked_v.txt 2>&1; echo "masked_v rc $?"; cat $r/masked_v.txt
timeout 300 bash bench/gpu/check.sh .devbuild $out/check > $r/check.log 2>&1; echo "check rc $? at $SECONDS s"; tail -14 $r/check.log
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

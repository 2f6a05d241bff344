#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q167/run.sh $OUT", carry=[".devbuild-xz-q167"], kind="nvidia-h100-x1")
# The last CUDA-side changes of 2026-11-27 evening (live_tokens clamps a decreasing cu_seqlens to no room; run()'s
# check of whole-output plans beyond the resident CTAs; check_supported checks the problem first): test_cuda, then
# bench/gpu/check.sh's validations and sanitizers with the CLI and library built alongside (test_cuda: .devbuild-xz-q168, the next call).
set -uo pipefail
out=$1; q=.devbuild-xz-q167; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 560 bash bench/gpu/check.sh .devbuild $out/check > $r/check.log 2>&1; echo "check rc $? at $SECONDS s"; tail -12 $r/check.log
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 60 python3 $q/short_lengths.py > $r/short_lengths.txt 2>&1; echo "short_lengths rc $?"; grep -c "length   0: zero" $r/short_lengths.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

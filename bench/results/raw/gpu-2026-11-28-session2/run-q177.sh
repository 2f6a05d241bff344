#!/usr/bin/env bash
# run(command="bash .devbuild-q177/run.sh $OUT", carry=[".devbuild", ".devbuild-q177"], kind="nvidia-h100-x1")
# 2026-11-28 (second session of the day): the session's changes through the GPU paths: the workspace checked apart from
# q, K, V and the index arrays (cuda/decode.cu), out/lse apart from the index arrays, the C ABI's host-lengths compare
# (CPU only) and messages, Python's autograd refusal and MQA strides. Every Python test with the GPU, then
# bench/gpu/check.sh (validations against float64, sanitizers, auto's host time on this CPU).
set -uo pipefail
out=$1; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
chmod +x .devbuild/leanattn .devbuild/bench_auto_speed
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -p no:cacheprovider -rs python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -3 $r/pytest.txt
timeout 330 bash bench/gpu/check.sh .devbuild $out/check > $r/check.log 2>&1; echo "check rc $? at $SECONDS s"; tail -14 $r/check.log
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

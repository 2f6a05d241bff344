#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q102/run.sh $OUT", carry=[".devbuild-xz-q100", ".devbuild-xz-q102"], kind="nvidia-h100-x1"), 2026-11-27 01:27 UTC, GPU in machine.txt
# examples/decode_loop.py's dense SDPA cache zero-filled past each request's tokens: the example and its test on the
# GPU machine's torch 2.11 (it compared NaN hidden states there), CPU and CUDA, with v32's library (.devbuild-xz-q100).
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
xz -dc .devbuild-xz-q100/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
timeout 200 python3 -m pytest -q python/tests/test_examples.py > $r/pytest-examples.txt 2>&1; echo "pytest examples rc $?: $(tail -1 $r/pytest-examples.txt)"
timeout 120 python3 examples/decode_loop.py --device cpu --tiny > $r/decode-loop-cpu.txt 2>&1; echo "cpu rc $?"; cat $r/decode-loop-cpu.txt
timeout 120 python3 examples/decode_loop.py --device cuda > $r/decode-loop-cuda.txt 2>&1; echo "cuda rc $?"; cat $r/decode-loop-cuda.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q126/run.sh $OUT", carry=[".devbuild-xz-q126"], kind="nvidia-h100-x1")
# Kernel v34's library (HEAD's build, DecodePlan defaulting to strategy="auto"): examples/decode_loop.py with auto's plan
# against stream-k's, each way of reading the lengths (staged, device), fp16 and bf16, in mirrored order (A B B A);
# then the Python example test.
set -uo pipefail
out=$1; q=.devbuild-xz-q126; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for dtype in fp16 bf16; do
  for lengths in staged device; do
    for strategy in auto stream-k stream-k auto; do
      echo "== $dtype --lengths $lengths --strategy $strategy" | tee -a $r/decode_loop.txt
      timeout 100 python3 examples/decode_loop.py --dtype $dtype --lengths $lengths --strategy $strategy >> $r/decode_loop.txt 2>&1; echo "rc $?" >> $r/decode_loop.txt
    done
  done
done
grep -E "^==|^leanattn|^sdpa |^rc" $r/decode_loop.txt
timeout 100 python3 -m pytest -q python/tests/test_examples.py > $r/pytest-examples.txt 2>&1; echo "pytest examples rc $?: $(tail -1 $r/pytest-examples.txt)"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

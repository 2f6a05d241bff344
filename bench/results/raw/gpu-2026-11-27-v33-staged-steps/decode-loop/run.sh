#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q111/run.sh $OUT", carry=[".devbuild-xz-q111"], kind="nvidia-h100-x1")
# Kernel v33's library (0eb60d8's build): examples/decode_loop.py with each step's work staged before the graph's
# replay (its new default) against the kernels reading the lengths on the device, twice in mirrored order, fp16 and
# bf16; then the Python example test on this machine's torch.
set -uo pipefail
out=$1; q=.devbuild-xz-q111; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for dtype in fp16 bf16; do
  for lengths in staged device device staged; do
    echo "== $dtype --lengths $lengths" | tee -a $r/decode_loop.txt
    timeout 120 python3 examples/decode_loop.py --dtype $dtype --lengths $lengths >> $r/decode_loop.txt 2>&1; echo "rc $?" >> $r/decode_loop.txt
  done
done
grep -E "^==|^leanattn |^sdpa |^first|^rc" $r/decode_loop.txt
timeout 200 python3 -m pytest -q python/tests/test_examples.py > $r/pytest-examples.txt 2>&1; echo "pytest examples rc $?: $(tail -1 $r/pytest-examples.txt)"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q127/run.sh $OUT", carry=[".devbuild-xz-q127"], kind="nvidia-h100-x1")
# Kernel v34's library with auto's tie rule for a cache's capacity (a DecodePlan keeps stream-k where its plan is
# no-split's, one whole output per CTA): examples/decode_loop.py, auto against stream-k (A B B A), staged and device
# lengths, fp16; then models.py on every model (fp16 and bf16), whose auto column now takes that rule.
set -uo pipefail
out=$1; q=.devbuild-xz-q127; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for lengths in staged device; do
  for strategy in auto stream-k stream-k auto; do
    echo "== fp16 --lengths $lengths --strategy $strategy" >> $r/decode_loop.txt
    timeout 60 python3 examples/decode_loop.py --dtype fp16 --lengths $lengths --strategy $strategy >> $r/decode_loop.txt 2>&1; echo "rc $?" >> $r/decode_loop.txt
  done
done
grep -E "^==|^leanattn|^rc" $r/decode_loop.txt
timeout $((560 - SECONDS)) python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $r/models.log
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

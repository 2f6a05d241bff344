#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q129/run.sh $OUT", carry=[".devbuild-xz-q129"], kind="nvidia-h100-x1")
# The library with auto weighing a plan for a capacity at ragged live lengths too (sim::PlannedLengths, the kernel
# models' narrow_in_flight_fraction): bench/gpu/ragged_live.py on every model, three draws of live lengths per shape;
# examples/decode_loop.py auto against stream-k (A B B A, staged, fp16); models.py (fp16) for the uniform lengths.
set -uo pipefail
out=$1; q=.devbuild-xz-q129; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 240 python3 bench/gpu/ragged_live.py --out $r/ragged --shapes 8x4096,32x2048 --draws 3 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"
sed -n '/over the best/,$p' $r/ragged/ragged.txt
for strategy in auto stream-k stream-k auto; do
  echo "== fp16 --lengths staged --strategy $strategy" >> $r/decode_loop.txt
  timeout 60 python3 examples/decode_loop.py --dtype fp16 --lengths staged --strategy $strategy >> $r/decode_loop.txt 2>&1; echo "rc $?" >> $r/decode_loop.txt
done
grep -E "^==|^leanattn|^rc" $r/decode_loop.txt
timeout $((575 - SECONDS)) python3 bench/gpu/models.py --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $r/models.log
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

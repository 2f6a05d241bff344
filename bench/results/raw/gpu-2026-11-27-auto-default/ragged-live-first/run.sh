#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q128/run.sh $OUT", carry=[".devbuild-xz-q128"], kind="nvidia-h100-x1")
# HEAD's library (kernel v34, DecodePlan defaulting to auto with the capacity tie rule): bench/gpu/ragged_live.py on every
# model, plans made for a capacity and run at ragged live lengths below it (B=8 at 4096, B=32 at 2048), fp16.
set -uo pipefail
out=$1; q=.devbuild-xz-q128; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 420 python3 bench/gpu/ragged_live.py --out $r/ragged --shapes 8x4096,32x2048 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"
tail -n 50 $r/ragged.log
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

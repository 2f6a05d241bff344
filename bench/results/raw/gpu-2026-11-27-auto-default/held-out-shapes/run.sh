#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q131/run.sh $OUT", carry=[".devbuild-xz-q131"], kind="nvidia-h100-x1")
# The library with no-split's 1% margin for a capacity (chosen on capacity-weighing/'s shapes): ragged_live.py on shapes
# it was not chosen on (every model at B=16 of 4096, B=64 of 1024 and B=4 of 8192, two draws each): a held-out check.
set -uo pipefail
out=$1; q=.devbuild-xz-q131; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 300 python3 bench/gpu/ragged_live.py --out $r/ragged --shapes 16x4096,64x1024,4x8192 --draws 2 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"
sed -n '/over the best/,$p' $r/ragged/ragged.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

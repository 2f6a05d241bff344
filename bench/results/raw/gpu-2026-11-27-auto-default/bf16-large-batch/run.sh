#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q133/run.sh $OUT", carry=[".devbuild-xz-q133"], kind="nvidia-h100-x1")
# HEAD's library (q131's): ragged_live.py in bf16, every model at B=16 of 4096 and B=128 of 1024, two draws.
set -uo pipefail
out=$1; q=.devbuild-xz-q133; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 200 python3 bench/gpu/ragged_live.py --out $r/ragged --shapes 16x4096,128x1024 --dtype bf16 --draws 2 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"
sed -n '/all shapes/,$p' $r/ragged/ragged.txt; grep -E "auto [0-9.]+" $r/ragged/ragged.txt | awk '{for(i=1;i<=NF;i++) if($i=="auto" && $(i+1)>1.03) print}' | head
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

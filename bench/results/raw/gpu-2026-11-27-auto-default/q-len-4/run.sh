#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q132/run.sh $OUT", carry=[".devbuild-xz-q132"], kind="nvidia-h100-x1")
# HEAD's library (q131's): ragged_live.py with four new tokens per request (speculative decoding's drafts, causal among
# them), every model at B=8 of 4096 and B=32 of 2048, two draws: auto for a capacity where it was not checked yet.
set -uo pipefail
out=$1; q=.devbuild-xz-q132; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 250 python3 bench/gpu/ragged_live.py --out $r/ragged --shapes 8x4096,32x2048 --q-len 4 --draws 2 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"
sed -n '/over the best/,$p' $r/ragged/ragged.txt; grep -i "refused\|failed" $r/ragged/ragged.jsonl | head -3 | cut -c1-300
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

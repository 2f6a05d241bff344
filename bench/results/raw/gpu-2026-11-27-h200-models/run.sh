#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q149/run.sh $OUT", carry=[".devbuild-xz-q148", ".devbuild-xz-q149"], kind="nvidia-h200")
# The models table on this GPU with the library of 3a69f19 (a plan reads the device file that describes its GPU):
# every model, fp16 and bf16, beside SDPA's backends (bench/gpu/models.py --bf16).
set -uo pipefail
out=$1; r=$out/r; mkdir -p $r .devbuild
xz -dc .devbuild-xz-q148/bins.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 400 python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; grep -i "geometric" $r/models/models.md
date -u >> $r/machine.txt
[ -f $r/models/models.jsonl ] && xz -9 $r/models/models.jsonl
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q130/run.sh $OUT", carry=[".devbuild-xz-q130"], kind="nvidia-h100-x1")
# HEAD's library (q129's, unchanged since): models.py on every model, fp16 and bf16 (the report's models table, with the
# capacity weighing and the scripts' shared timing), then ragged_live.py on two models (its refactor checked).
set -uo pipefail
out=$1; q=.devbuild-xz-q130; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 330 python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $r/models.log
timeout 60 python3 bench/gpu/ragged_live.py --out $r/ragged --models llama-3-8b,phi-3-mini --draws 2 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"; tail -4 $r/ragged/ragged.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

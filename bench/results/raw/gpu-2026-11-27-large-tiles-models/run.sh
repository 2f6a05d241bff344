#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q155/run.sh $OUT", carry=[".devbuild-xz-q155"], kind="nvidia-h100-x1")
# HEAD 49ea424's build (auto's larger tiles as committed: 10% then 0.1%, none at head dim 64). The models table, every
# model, fp16 and bf16 (bench/gpu/models.py --bf16), then Python's tests with this library.
set -uo pipefail
out=$1; q=.devbuild-xz-q155; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 420 python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; grep -i "geometric" $r/models/models.md
timeout 150 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -1 $r/pytest.txt
date -u >> $r/machine.txt
[ -f $r/models/models.jsonl ] && xz -9 $r/models/models.jsonl
bash bench/gpu/pack_out.sh $out

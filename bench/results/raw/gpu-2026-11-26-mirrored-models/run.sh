#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q49/run.sh $OUT", carry=[".devbuild-xz-q49"], kind="nvidia-h100-x1") at 12:32 UTC (wall 114 s); .devbuild-xz-q49 held the stripped libleanattn.so of eb51c1a.
# Every model (models.py, fp16 and bf16) with each shape's peers timed in two mirrored blocks (67946aa), on the
# build of eb51c1a (kernel v22, the idle SMs' kernel models).
set -o pipefail
out=$1; q=.devbuild-xz-q49; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

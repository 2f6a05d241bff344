#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q53/run.sh $OUT", carry=[".devbuild-xz-q53"], kind="nvidia-h100-x1") at 13:11 UTC (wall 119 s); .devbuild-xz-q53 held the stripped libleanattn.so of a8b2963.
# Every model (models.py, fp16 and bf16, mirrored blocks) on the build of a8b2963: kernel v22, the idle SMs' kernel models,
# auto taking no-split for stream-k's whole-output plans.
set -o pipefail
out=$1; q=.devbuild-xz-q53; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

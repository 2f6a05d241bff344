#!/usr/bin/env bash
# Auto weighing host-lengths steps with the host-lengths model (0f8445c), kernel v22 unchanged: the plans beside auto's
# on the shapes auto lost (cuda bench --shapes, host lengths), then models.py (every model beside SDPA).
set -o pipefail
out=$1; mkdir -p .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-q12/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
.devbuild/leanattn cuda bench --shapes .devbuild-xz-q12/shapes.txt --lengths host --repeat 50 --dtype fp16 -o $out/plans.jsonl > $out/plans.log 2>&1; echo "plans rc $?"
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log
bash bench/gpu/pack_out.sh $out

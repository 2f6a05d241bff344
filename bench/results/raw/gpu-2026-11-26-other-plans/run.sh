#!/usr/bin/env bash
# Other plans of the model shapes still behind SDPA (Phi-3-medium B=8 4k: stream-k grids; Llama-3.1-405B B=1 16k: grids,
# 8-row blocks, fixed-split counts; Falcon-7B B=1 16k: split counts, grids), cuda bench in mirrored blocks, host lengths.
set -uo pipefail
out=$1; q=.devbuild-xz-q37; mkdir -p .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
for round in 1 2; do
  .devbuild/leanattn cuda bench --shapes $q/plans.txt --lengths host --repeat 100 --dtype fp16 -o $out/plans-$round.jsonl 2> $out/plans-$round.log; echo "round $round rc $?"
done
echo "done in $SECONDS s"

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q154/run.sh $OUT", carry=[".devbuild-xz-q154"], kind="nvidia-h100-x1")
# HEAD's build (auto's larger tiles on their two margins). (1) The validation problems, drawn after the rule was set
# (bench/gpu/large-tile-validation.txt): cuda bench --strategy auto against --tile-rows 16, interleaved, two rounds, both
# ways of reading the lengths, and every strategy at every tile (…-validation-sweep.txt); (2) the set the rule was
# made on again (large-tile-problems.txt, auto both ways); (3) models.py on the models with more than 16 rows per KV
# head at q_len 4 (fp16): auto beside the 16-row plans and SDPA.
set -uo pipefail
out=$1; q=.devbuild-xz-q154; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  for way in device host; do
    timeout 100 $L cuda bench --shapes bench/gpu/large-tile-validation.txt --strategy auto --lengths $way --repeat 50 -o $r/val-auto-$way-$round.jsonl 2> $r/val-auto-$way-$round.log; echo "val auto $way $round rc $? at $SECONDS s"
    timeout 100 $L cuda bench --shapes bench/gpu/large-tile-validation.txt --strategy auto --tile-rows 16 --lengths $way --repeat 50 -o $r/val-auto16-$way-$round.jsonl 2> $r/val-auto16-$way-$round.log; echo "val auto16 $way $round rc $? at $SECONDS s"
  done
done
for way in device host; do
  timeout 150 $L cuda bench --shapes bench/gpu/large-tile-validation-sweep.txt --lengths $way --repeat 50 -o $r/val-sweep-$way.jsonl 2> $r/val-sweep-$way.log; echo "val sweep $way rc $? at $SECONDS s"
  timeout 100 $L cuda bench --shapes bench/gpu/large-tile-problems.txt --strategy auto --lengths $way --repeat 50 -o $r/auto-$way.jsonl 2> $r/auto-$way.log; echo "auto $way rc $? at $SECONDS s"
done
timeout 200 python3 bench/gpu/models.py --models codellama-34b,falcon-7b,llama-2-70b,llama-3-70b,llama-3.1-405b,qwen2-7b,qwen2.5-7b,qwen2.5-32b --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"
date -u >> $r/machine.txt
[ -f $r/models/models.jsonl ] && xz -9 $r/models/models.jsonl
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q153/run.sh $OUT", carry=[".devbuild-xz-q153"], kind="nvidia-h100-x1")
# HEAD's build with auto weighing larger tiles (32-128 rows) for KV heads of more than 16 rows. (1) cuda bench --strategy
# auto on the problems of large-tile-shapes.txt, against --tile-rows 16 (auto as it was for these problems: no tile
# weighed), interleaved, two rounds, both ways of reading the lengths; (2) the large-tile sweep again on this machine
# (every strategy at every tile: the best there is); (3) models.py on the models whose q_len-4 shapes have more than
# 16 rows per KV head (fp16); (4) Python's tests and test_cuda with this library.
set -uo pipefail
out=$1; q=.devbuild-xz-q153; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for round in 1 2; do
  for way in device host; do
    timeout 100 $L cuda bench --shapes bench/gpu/large-tile-problems.txt --strategy auto --lengths $way --repeat 50 -o $r/auto-$way-$round.jsonl 2> $r/auto-$way-$round.log; echo "auto $way $round rc $? at $SECONDS s"
    timeout 100 $L cuda bench --shapes bench/gpu/large-tile-problems.txt --strategy auto --tile-rows 16 --lengths $way --repeat 50 -o $r/auto16-$way-$round.jsonl 2> $r/auto16-$way-$round.log; echo "auto16 $way $round rc $? at $SECONDS s"
  done
done
for way in device host; do
  timeout 100 $L cuda bench --shapes bench/gpu/large-tile-shapes.txt --lengths $way --repeat 50 -o $r/sweep-$way.jsonl 2> $r/sweep-$way.log; echo "sweep $way rc $? at $SECONDS s"
done
timeout 300 python3 bench/gpu/models.py --models codellama-34b,falcon-7b,llama-2-70b,llama-3-70b,llama-3.1-405b,qwen2-7b,qwen2.5-7b,qwen2.5-32b --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"
timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $r/pytest.txt
timeout 150 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
date -u >> $r/machine.txt
[ -f $r/models/models.jsonl ] && xz -9 $r/models/models.jsonl
bash bench/gpu/pack_out.sh $out

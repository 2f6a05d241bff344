#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q77/run.sh $OUT", carry=[".devbuild-xz-q76", ".devbuild-xz-q77"], kind="nvidia-h100-x1"), 2026-11-26 19:06 UTC, GPU-57d37ba8, 154 s on the machine (.devbuild-xz-q76: the v27 build of ../gpu-2026-11-26-calibration-v27-h100)
# Kernel v29 (a team of several warps takes up to 4 blocks of 16 tokens a turn) against v27 (q76's leanattn, HEAD
# ac9fd1c): validation of every team shape, the Python GPU tests, team shapes and three model shapes A B A B (host
# lengths), Falcon-7B B=1 16k on 80-row tiles at several grids and splits, and plan_probe beside cuDNN.
set -uo pipefail
out=$1; q=.devbuild-xz-q77; mkdir -p .devbuild .devbuild-base $out/ab
xz -dc .devbuild-xz-q76/leanattn.xz > .devbuild-base/leanattn
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
{ for L in device host; do for lay in padded paged ragged; do for d in 64 96 128 256; do for gqt in 71:1:80 16:2:32 8:8:64 32:4:128 7:8:64 3:1:16; do
  IFS=: read -r g ql t <<< "$gqt"; [ $d = 256 ] && [ $t -gt 64 ] && continue
  echo "== d $d group $g q_len $ql tile_rows $t layout $lay lengths $L"
  timeout 60 .devbuild/leanattn cuda validate --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $ql --head-dim $d --ctx $ql,700,2600 --layout $lay --lengths $L --tile-rows $t || echo "   ^ FAILED"
done; done; done; done; } > $out/validate.log 2>&1
echo "validate: $(grep -c FAILED $out/validate.log) failed of $(grep -c '^==' $out/validate.log) at $SECONDS s"
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 150 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py > $out/pytest.log 2>&1; echo "pytest rc $? at $SECONDS s"; tail -1 $out/pytest.log
bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --shapes $q/team-shapes.txt -- --lengths host --repeat 50 > /dev/null 2>&1; echo "ab rc $? at $SECONDS s"; cat $out/ab/ab.txt
{ for g in 8 16 24 32 48 64 96 132; do echo "== stream-k grid $g"; .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --tile-rows 80 --lengths host --strategy stream-k --grid $g --repeat 50 2>&1 | grep -E "stream-k|error"; done
  for s in 4 8 12 16 24 32 48; do echo "== fixed-split splits $s"; .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --tile-rows 80 --lengths host --strategy fixed-split --splits $s --repeat 50 2>&1 | grep -E "fixed-split|error"; done
  echo "== 16-row tiles"; .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --lengths host --strategy stream-k --grid 80 --repeat 50 2>&1 | grep stream-k
  .devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --lengths host --strategy fixed-split --splits 16 --repeat 50 2>&1 | grep fixed-split; } > $out/falcon-t80.txt 2>&1
echo "falcon sweep at $SECONDS s"; cat $out/falcon-t80.txt
for b in base new; do dev=.devbuild; [ $b = base ] && dev=.devbuild-base
  $dev/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all --lengths host -o $out/row-blocks-host-$b.jsonl 2> $out/row-blocks-host-$b.log; echo "row blocks $b rc $? at $SECONDS s"; done
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 200 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 > $out/plan_probe.txt 2>&1; echo "plan_probe rc $? at $SECONDS s"; tail -20 $out/plan_probe.txt
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

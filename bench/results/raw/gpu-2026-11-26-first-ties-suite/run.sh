#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q87/run.sh $OUT", carry=[".devbuild-xz-q87", ".whl"], kind="nvidia-h200"), 2026-11-26 21:49 UTC, GPU-ce961207 (an H100 came: the H100 branch ran), 412 s on the machine
# The build of d5c2046 (kernel v29; the aligned rule's balanced ties; cuda bench records each plan's snap).
# On an H200: the held-out sweep both ways of reading the lengths, two rounds each, against the predictions committed
# before (bench/results/calibration-h200-predicted-v27-host-shared.jsonl). On an H100: the suite and the Python
# package's GPU tests.
set -o pipefail
out=$1; q=.devbuild-xz-q87; mkdir -p $out/r .devbuild
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in
*H200*)
  for round in 1 2; do
    .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
    .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
  done;;
*)
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || echo "no FlashInfer wheels: the suite runs without it"
  python3 bench/gpu/suite.py --out $r/suite --budget-s 400 > $r/call.log 2>&1; echo "suite rc $? at $SECONDS s"
  grep "target:" $r/call.log | cut -c1-200
  export PYTHONPATH=$PWD/python:${PYTHONPATH:-}
  mkdir -p $r/python-gpu
  timeout 100 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $r/python-gpu/pytest.log 2>&1; echo "pytest rc $? at $SECONDS s"
  tail -2 $r/python-gpu/pytest.log;;
esac
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

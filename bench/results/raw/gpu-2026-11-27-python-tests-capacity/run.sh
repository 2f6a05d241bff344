#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q134/run.sh $OUT", carry=[".devbuild-xz-q134"], kind="nvidia-h200")
# HEAD 7c333d2's CLI and library in one xz stream (their kernels compress together: 16 MB for both). On an H200: the
# held-out sweep both ways of reading the lengths, two rounds each, against the predictions committed first (7c333d2,
# bench/results/calibration-h200-predicted-v34*.jsonl). On any GPU: Python's tests on the library (the capacity
# weighing of auto landed after their last GPU run).
set -uo pipefail
out=$1; q=.devbuild-xz-q134; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
case "$(head -1 $r/machine.txt)" in
  *H200*)
    for round in 1 2; do
      .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 -o $r/heldout-$round.jsonl 2> $r/heldout-$round.log; echo "device $round rc $? at $SECONDS s"
      .devbuild/leanattn cuda bench --shapes data/calibration/heldout-shapes.txt --repeat 50 --device h200 --lengths host -o $r/heldout-host-$round.jsonl 2> $r/heldout-host-$round.log; echo "host $round rc $? at $SECONDS s"
    done;;
esac
timeout 240 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $r/pytest.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

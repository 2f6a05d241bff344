#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q115/run.sh $OUT", carry=[".devbuild-xz-q115"], kind="nvidia-h100-x1"), after q113 and q114 on the same warm machine
# Paired blocks (kernel v34 trial), third call: the trial's library: the Python package's GPU tests, models.py on every
# model (fp16 and bf16, mirrored blocks) beside SDPA's backends; then, with the two CLIs the earlier calls left here,
# ab.sh as steps of run() (device lengths) and every strategy on Falcon-7B B=1 16k as host-lengths steps.
set -uo pipefail
out=$1; q=.devbuild-xz-q115; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 200 python3 -m pytest -q python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s: $(tail -1 $r/pytest.txt)"; grep -E "FAILED|Error" $r/pytest.txt | head
timeout 300 python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $r/models.log
grep -E "falcon-7b \| 1 \| 16384 \| 1 |phi-3-medium \| 8 \| 4096 \| 1 " $r/models/models.md
if [ -x .devbuild-a/leanattn ] && [ -x .devbuild/leanattn ]; then
  q=.devbuild-xz-q115  # the same shapes as the second call
  bash bench/gpu/ab.sh .devbuild-a .devbuild $r/device --shapes $q/shapes.txt --strategy auto -- --lengths device > /dev/null 2>&1; echo "ab device rc $? at $SECONDS s"
  grep -v "plans:" $r/device/ab.txt
  echo "falcon-b1-16k:--model falcon-7b --batch 1 --ctx 16384" > $r/falcon.txt
  bash bench/gpu/ab.sh .devbuild-a .devbuild $r/falcon-all --shapes $r/falcon.txt -- --lengths host > /dev/null 2>&1; echo "ab falcon all rc $? at $SECONDS s"
  grep -v "plans:" $r/falcon-all/ab.txt
else
  echo "no CLIs from the earlier calls on this machine: the A/B part skipped"
fi
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

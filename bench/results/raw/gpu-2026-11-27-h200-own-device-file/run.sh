#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q148/run.sh $OUT", carry=[".devbuild-xz-q148"], kind="nvidia-h200")
# A plan on a GPU reads the device file that describes it (cuda_names): the CLI's default device and DecodePlan's on
# this GPU, test_cuda and Python's tests; then auto's picks on the held-out sweep timed with this GPU's device file and
# with h100-sxm's (both as steps of run(), 30 replays), against the sweep's three default plans timed in the same run.
set -uo pipefail
out=$1; q=.devbuild-xz-q148; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn .devbuild/test_cuda
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
$L devices > $r/devices.txt
$L cuda bench --batch 2 --heads 8 --head-dim 128 --ctx 3000 --repeat 5 | head -2 | tee $r/default-device.txt
timeout 120 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -2 $r/test_cuda.txt
timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -1 $r/pytest.txt
S=data/calibration/heldout-shapes.txt
$L cuda bench --shapes $S --repeat 30 -o $r/defaults.jsonl 2> $r/defaults.log; echo "defaults rc $? at $SECONDS s"
$L cuda bench --shapes $S --repeat 30 --strategy auto -o $r/auto-own.jsonl 2> $r/auto-own.log; echo "auto own rc $? at $SECONDS s"
$L cuda bench --shapes $S --repeat 30 --strategy auto --device h100-sxm -o $r/auto-h100-sxm.jsonl 2> $r/auto-h100-sxm.log; echo "auto h100-sxm rc $? at $SECONDS s"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

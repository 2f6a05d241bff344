#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q150/run.sh $OUT", carry=[".devbuild-xz-q150"], kind="nvidia-h100-x1")
# HEAD da618d8's build (kernel v34, unchanged since the v34 calibration). The calibration sweeps on one H100, both
# ways of reading the lengths: train, the new train2 (seed 4) and live2 (seed 5) drawn and committed before this run,
# live, and the held-out sweep twice (a third machine's rounds beside the committed ones).
set -uo pipefail
out=$1; q=.devbuild-xz-q150; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
timeout 240 bash bench/gpu/calibration.sh .devbuild $r/cal-device > $r/cal-device.log 2>&1; echo "cal device rc $? at $SECONDS s"
CALIBRATION_FLAGS="--lengths host" timeout 240 bash bench/gpu/calibration.sh .devbuild $r/cal-host > $r/cal-host.log 2>&1; echo "cal host rc $? at $SECONDS s"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q76/run.sh $OUT", carry=[".devbuild-xz-q76"], kind="nvidia-h100-x1"), 2026-11-26 18:56 UTC, GPU-4097bd8a, 51 s on the machine
# Kernel v27 (HEAD ac9fd1c): the calibration sweeps (steps of run() with traces, host-lengths steps), the row-block
# sweep both ways and the models table's 160 shapes under every strategy both ways: the data of a refit on v27.
set -uo pipefail
out=$1; q=.devbuild-xz-q76; mkdir -p $out/r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
bash bench/gpu/calibration.sh .devbuild $r/cal-device > /dev/null 2>&1; echo "cal-device rc $? at $SECONDS s"
CALIBRATION_FLAGS="--lengths host" bash bench/gpu/calibration.sh .devbuild $r/cal-host > /dev/null 2>&1; echo "cal-host rc $? at $SECONDS s"
.devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all -o $r/cal-device/row-blocks.jsonl 2> $r/cal-device/row-blocks.log; echo "rb rc $?"
.devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all --lengths host -o $r/cal-host/row-blocks.jsonl 2> $r/cal-host/row-blocks.log; echo "rb host rc $? at $SECONDS s"
timeout 200 .devbuild/leanattn cuda bench --shapes $q/models-shapes.txt --strategy all --repeat 50 -o $r/models-device.jsonl 2> $r/models-device.log; echo "models device rc $? at $SECONDS s"
timeout 200 .devbuild/leanattn cuda bench --shapes $q/models-shapes.txt --strategy all --repeat 50 --lengths host -o $r/models-host.jsonl 2> $r/models-host.log; echo "models host rc $? at $SECONDS s"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

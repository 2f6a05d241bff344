#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q139/run.sh $OUT", carry=[".devbuild-xz-q139"])
# HEAD's build (kernel v34, as the v34 calibration sweeps'): bench/gpu/calibration.sh both ways of reading the lengths
# (training, live steps, held-out twice, traces) on another H100: a second machine's rounds for the fits.
set -uo pipefail
out=$1; q=.devbuild-xz-q139; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 200 bash bench/gpu/calibration.sh .devbuild $r/cal-device > $r/cal-device.log 2>&1; echo "cal device rc $? at $SECONDS s"
CALIBRATION_FLAGS="--lengths host" timeout 200 bash bench/gpu/calibration.sh .devbuild $r/cal-host > $r/cal-host.log 2>&1; echo "cal host rc $? at $SECONDS s"
(cd $r/cal-device && tar cJf traces.tar.xz trace-*.json && rm -f trace-*.json)
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q182/run.sh $OUT", carry=[".devbuild-xz-q182"], kind="nvidia-h100-x1")
# 2026-11-28 (third session of the day): the table kernels clear a host-lengths or staged step's empty requests. A/B
# against the build before (8eb9e85): host-lengths steps on the target and model shapes, staged steps on the target
# shapes, each A, B, A, B (test_cuda and the Python tests: run-q183.sh, the carry has no room for both).
set -uo pipefail
out=$1; q=.devbuild-xz-q182; r=$out/r; mkdir -p $r .devbuild-old .devbuild-new
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/leanattn-old.xz > .devbuild-old/leanattn; xz -dc $q/leanattn-new.xz > .devbuild-new/leanattn
chmod +x .devbuild-old/leanattn .devbuild-new/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 330 bash bench/gpu/ab.sh .devbuild-old:--lengths\ host .devbuild-new:--lengths\ host $r/ab-host --models > /dev/null 2>&1; echo "ab host rc $? at $SECONDS s"
timeout 200 bash bench/gpu/ab.sh .devbuild-old:--lengths\ staged .devbuild-new:--lengths\ staged $r/ab-staged > /dev/null 2>&1; echo "ab staged rc $? at $SECONDS s"
cat $r/ab-host/ab.txt $r/ab-staged/ab.txt 2>/dev/null | awk '{print $1, $2, $NF}' | column -t | head -80
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q88/run.sh $OUT", carry=[".devbuild-xz-q88"], kind="nvidia-h100-x1"), 2026-11-26 22:09 UTC, GPU-762a9681, 13 s on the machine
# A = HEAD 7d0d042 (q84), B = the final tie order (f3f578e): auto's choices it moved under the device-lengths model,
# A B A B each (steps reading the lengths on the device, the default), then B validated on them both ways.
set -uo pipefail
out=$1; mkdir -p $out/r
for side in A B; do mkdir -p .dev$side; xz -dc .devbuild-xz-q88/leanattn-$side.xz > .dev$side/leanattn; chmod +x .dev$side/leanattn; done
export LEANATTN_DATA=$PWD/data
r=$out/r; q=.devbuild-xz-q88
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
bash bench/gpu/ab.sh .devA .devB $r/auto-device --shapes $q/device-auto-shapes.txt --strategy auto > /dev/null 2>&1; echo "auto device rc $? at $SECONDS s"
n=0; bad=0
while IFS= read -r line; do
  case $line in ''|'#'*) continue;; esac
  for lengths in device host; do
    n=$((n+1)); .devB/leanattn cuda validate ${line#*:} --strategy auto --lengths $lengths >> $r/validate.log 2>&1 || { bad=$((bad+1)); echo "FAILED: ${line#*:} --lengths $lengths" >> $r/validate.log; }
  done
done < $q/device-auto-shapes.txt
echo "validate: $((n-bad))/$n at $SECONDS s"
date -u >> $r/machine.txt
cat $r/auto-device/ab.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q120/run.sh $OUT", carry=[".devbuild-xz-q120"], kind="nvidia-h100-x1"), after .devbuild-xz-q113/run.sh (A) and .devbuild-xz-q117/run-first.sh (B = v34) on the same warm machine
# Where v34's 1-8% on short steps of run() comes from: A (v33) against B (v34), auto as steps of run(), with the kernels
# launched as they are (programmatic dependent launch: the next kernel's CTAs resident early) and plainly (LEANATTN_PDL=0).
# If the gap goes with the overlap, it is the kernels' residency beside each other; if it stays, it is inside the step's kernels.
set -uo pipefail
out=$1; q=.devbuild-xz-q120; r=$out/r; mkdir -p $r
[ -x .devbuild-a/leanattn ] && [ -x .devbuild-b/leanattn ] || { echo "no .devbuild-a or -b: the earlier calls did not run on this machine"; exit 3; }
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for pdl in 1 0; do
  LEANATTN_PDL=$pdl bash bench/gpu/ab.sh .devbuild-a .devbuild-b $r/device-pdl$pdl --shapes $q/shapes.txt --strategy auto -- --lengths device > /dev/null 2>&1; echo "== device, LEANATTN_PDL=$pdl rc $? at $SECONDS s"
  grep -v "plans:" $r/device-pdl$pdl/ab.txt
done
LEANATTN_PDL=1 bash bench/gpu/ab.sh .devbuild-a .devbuild-b $r/host-pdl1 --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "== host rc $? at $SECONDS s"
grep -v "plans:" $r/host-pdl1/ab.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

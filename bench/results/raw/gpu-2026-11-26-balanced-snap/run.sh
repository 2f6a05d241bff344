#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q86/run.sh $OUT", carry=[".devbuild-xz-q86"], kind="nvidia-h100-x1"), 2026-11-26 21:27 UTC, GPU-18218b9f, 73 s on the machine
# A = HEAD 7d0d042 (q84), B = the aligned rule's balanced tie-break (q86): auto's choices it moved (host-lengths steps)
# and the stream-k plans it moved (default and given grids, both ways of reading the lengths), A B A B each;
# then the B build validated on those shapes.
set -uo pipefail
out=$1; mkdir -p $out/r
for side in A B; do  # leanattn-A.xz: HEAD 7d0d042's (.devbuild-xz-q84); leanattn-B.xz: this change
  mkdir -p .dev$side; xz -dc .devbuild-xz-q86/leanattn-$side.xz > .dev$side/leanattn; chmod +x .dev$side/leanattn
done
export LEANATTN_DATA=$PWD/data
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
q=.devbuild-xz-q86
bash bench/gpu/ab.sh .devA .devB $r/auto-host --shapes $q/auto-shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "auto host rc $? at $SECONDS s"
for lengths in host device; do
  bash bench/gpu/ab.sh .devA .devB $r/default-$lengths --shapes $q/default-shapes.txt -- --lengths $lengths > /dev/null 2>&1; echo "default $lengths rc $? at $SECONDS s"
  bash bench/gpu/ab.sh .devA .devB $r/grid-$lengths --shapes $q/grid-shapes.txt --strategy stream-k -- --lengths $lengths > /dev/null 2>&1; echo "grid $lengths rc $? at $SECONDS s"
done
n=0; bad=0
for f in default-shapes.txt:all grid-shapes.txt:stream-k auto-shapes.txt:auto; do
  while IFS= read -r line; do
    case $line in ''|'#'*) continue;; esac
    for lengths in device host; do
      n=$((n+1)); .devB/leanattn cuda validate ${line#*:} --strategy ${f#*:} --lengths $lengths >> $r/validate.log 2>&1 || { bad=$((bad+1)); echo "FAILED: ${line#*:} --lengths $lengths" >> $r/validate.log; }
    done
  done < $q/${f%%:*}
done
echo "validate: $((n-bad))/$n at $SECONDS s"
date -u >> $r/machine.txt
cat $r/auto-host/ab.txt $r/default-host/ab.txt $r/default-device/ab.txt $r/grid-host/ab.txt $r/grid-device/ab.txt
bash bench/gpu/pack_out.sh $out

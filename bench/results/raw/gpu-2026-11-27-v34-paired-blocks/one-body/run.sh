#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q116/run.sh $OUT", carry=[".devbuild-xz-q116"], kind="nvidia-h100-x1"), right after .devbuild-xz-q113/run.sh on the same warm machine
# Paired blocks, second version (one body for a pair and for a segment's odd last block, so the kernel's code stays
# the size it was): ab.sh (A B A B) of HEAD's CLI against it, auto as steps of run() and as host-lengths steps, every
# strategy on Falcon-7B B=1 16k and 4k; validations of the head-dim-64 paths and compute-sanitizer on one of them.
set -uo pipefail
out=$1; q=.devbuild-xz-q116; r=$out/r; mkdir -p $r .devbuild-a .devbuild
[ -x .devbuild-a/leanattn ] || { echo "no .devbuild-a/leanattn: the first call did not run on this machine"; exit 3; }
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
bash bench/gpu/ab.sh .devbuild-a .devbuild $r/device --shapes $q/shapes.txt --strategy auto -- --lengths device > /dev/null 2>&1; echo "ab device rc $? at $SECONDS s"
grep -v "plans:" $r/device/ab.txt
bash bench/gpu/ab.sh .devbuild-a .devbuild $r/host --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "ab host rc $? at $SECONDS s"
grep -v "plans:" $r/host/ab.txt
printf '%s\n' "falcon-b1-16k:--model falcon-7b --batch 1 --ctx 16384" "falcon-b1-4k:--model falcon-7b --batch 1 --ctx 4096" > $r/falcon.txt
for l in host device; do
  bash bench/gpu/ab.sh .devbuild-a .devbuild $r/falcon-all-$l --shapes $r/falcon.txt -- --lengths $l > /dev/null 2>&1; echo "ab falcon all $l rc $? at $SECONDS s"
  grep -v "plans:" $r/falcon-all-$l/ab.txt
done
{
  for d in fp16 bf16; do for l in device host staged; do for g in 1 2 4 8 16; do for ql in 1 3; do
    f="--batch 3 --kv-heads 2 --heads $((2 * g)) --head-dim 64 --q-len $ql --ctx 33,1000,4111 --dtype $d --lengths $l --strategy all"
    echo "== $f"; .devbuild/leanattn cuda validate $f || echo "   ^ FAILED"
  done; done; done; done
  for m in "--model falcon-7b --batch 4 --ctx 9000,300,4100,16000 --layout paged" "--model falcon-7b --batch 1 --ctx 16384 --q-len 4"; do
    echo "== $m"; .devbuild/leanattn cuda validate $m --strategy all || echo "   ^ FAILED"
  done
} > $r/validate-d64.txt 2>&1
echo "validate d64: $(grep -c FAILED $r/validate-d64.txt) failed of $(grep -c '^==' $r/validate-d64.txt) at $SECONDS s"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool .devbuild/leanattn cuda validate --batch 2 --heads 32 --kv-heads 8 --head-dim 64 --ctx 3001,77 --q-len 4 --strategy all --lengths host >> $r/sanitize-$tool.txt 2>&1; echo "$tool rc $? $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $r/sanitize-$tool.txt | tail -1)"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q114/run.sh $OUT", carry=[".devbuild-xz-q114"], kind="nvidia-h100-x1"), right after .devbuild-xz-q113/run.sh on the same warm machine
# Paired blocks (kernel v34 trial: one-warp teams at head dim 64 compute two 16-token blocks per online-softmax step),
# second call: ab.sh (A B A B) of HEAD's CLI against the trial's on head-dim-64 shapes and two unchanged controls, auto
# as host-lengths steps; every validation (check.sh) and compute-sanitizer on the paired path. (Steps of run() and every
# strategy on Falcon-7B: the third call, .devbuild-xz-q115/run.sh.)
set -uo pipefail
out=$1; q=.devbuild-xz-q114; r=$out/r; mkdir -p $r .devbuild-a .devbuild
[ -x .devbuild-a/leanattn ] || { echo "no .devbuild-a/leanattn: the first call did not run on this machine"; exit 3; }
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
bash bench/gpu/ab.sh .devbuild-a .devbuild $r/host --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "ab host rc $? at $SECONDS s"
grep -v "plans:" $r/host/ab.txt
timeout 240 bash bench/gpu/check.sh .devbuild $r/check > $r/check.txt 2>&1; echo "check rc $? at $SECONDS s"; tail -12 $r/check.txt
for tool in memcheck racecheck synccheck; do
  for f in "--model falcon-7b --batch 4 --ctx 9000,300,4100,16000 --layout paged --strategy all" "--batch 2 --heads 32 --kv-heads 8 --head-dim 64 --ctx 3001,77 --q-len 4 --strategy all --lengths host"; do
    # shellcheck disable=SC2086
    compute-sanitizer --tool $tool .devbuild/leanattn cuda validate $f >> $r/sanitize-$tool.txt 2>&1; echo "$tool [$f] rc $? $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $r/sanitize-$tool.txt | tail -1)"
  done
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Planned steps, second build (fixed-split's reduce reads its split counts from the workspace, GPU test of planned
# steps): check.sh with every validation as a planned step, sanitizers on planned steps, then run() against planned.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so test_cuda; do xz -dc .devbuild-xz-p2/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
bash bench/gpu/ab.sh .devbuild ".devbuild:--lengths host" $out/ab-device-host --models > /dev/null 2>&1
cat $out/ab-device-host/ab.txt
bash bench/gpu/check.sh .devbuild $out/check --lengths host > /dev/null 2>&1
for tool in memcheck racecheck synccheck; do
  for s in "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 3000" "--batch 3 --heads 8 --head-dim 64 --ctx 3000,9,700 --layout ragged" "--model falcon-7b --batch 2 --ctx 2000,300 --q-len 2"; do
    echo "== $tool $s"; compute-sanitizer --tool $tool .devbuild/leanattn cuda validate $s --lengths host 2>&1 | grep -E "SUMMARY|FAILED|ok$" | tr '\n' ' '; echo
  done
done > $out/check/sanitize-planned.txt 2>&1
cat $out/check/summary.txt $out/check/sanitize-planned.txt
cd $out && tar czf logs.tgz check ab-device-host && cp check/summary.txt summary.txt && cp check/sanitize-planned.txt sanitize-planned.txt && cp ab-device-host/ab.txt ab.txt && rm -rf check ab-device-host
echo "done $SECONDS s"

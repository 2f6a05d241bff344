#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q108/run.sh $OUT", carry=[".devbuild-xz-q108"], kind="nvidia-h100-x1")
# Staged steps (branch staged-steps: kernels of their own reading the table from the workspace; stage_step/run_staged,
# `--lengths staged`, the C ABI and DecodePlan.stage), first call: check.sh with every validation as a staged step (and the
# Python GPU tests, which need the library: the third call), compute-sanitizer on staged problems, and one build's three kinds
# of step side by side (ab.sh, auto): host lengths against staged, device lengths against staged.
set -uo pipefail
out=$1; q=.devbuild-xz-q108; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 360 bash bench/gpu/check.sh .devbuild $r/check-staged --lengths staged > $r/check-staged.txt 2>&1; echo "check rc $? at $SECONDS s"; tail -12 $r/check-staged.txt
for tool in memcheck racecheck synccheck; do
  for f in "--model llama-3-8b --batch 8 --ctx 4000,100,2500,900,3000,64,1700,4096 --layout paged --strategy stream-k" "--model falcon-7b --batch 1 --ctx 4096 --strategy all"; do
    # shellcheck disable=SC2086
    compute-sanitizer --tool $tool .devbuild/leanattn cuda validate $f --lengths staged >> $r/sanitize-$tool.txt 2>&1; echo "$tool [$f] rc $? $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $r/sanitize-$tool.txt | tail -1)"
  done
done
bash bench/gpu/ab.sh .devbuild:--lengths\ host .devbuild:--lengths\ staged $r/host-vs-staged --shapes $q/shapes.txt --strategy auto > /dev/null 2>&1; echo "ab 1 rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild:--lengths\ device .devbuild:--lengths\ staged $r/device-vs-staged --shapes $q/shapes.txt --strategy auto > /dev/null 2>&1; echo "ab 2 rc $? at $SECONDS s"
for t in host-vs-staged device-vs-staged; do echo "== $t"; grep -v "plans:" $r/$t/ab.txt; done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q69/run.sh $OUT", carry=[".devbuild-xz-q69"], kind="nvidia-h100-x1") at 17:28 UTC; .devbuild-xz-q69 held the CLI and libleanattn.so of 2de0d22 with the host's batch of peers at 16 (not committed) and, as base-*, those of kernel v25 (q67).
# Kernel v26 (a host loads 16 peers' partials per batch instead of 8: one L2 round trip for up to 16 peers) against
# v25 (base: the build of q67). Falcon-7B B=1 16k and Phi-3-medium traces, then ab.sh over the targets' and the
# models' shapes (host lengths, A B A B), then check.sh on v26.
set -uo pipefail
out=$1; q=.devbuild-xz-q69; mkdir -p $out .devbuild .devbuild-base
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; xz -dc $q/base-$f.xz > .devbuild-base/$f; done
chmod +x .devbuild/leanattn .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
mkdir -p $out/traces
f="--model falcon-7b --batch 1 --ctx 16384 --repeat 200"
for side in base new; do
  d=.devbuild; [ $side = base ] && d=.devbuild-base
  $d/leanattn cuda bench $f --strategy stream-k --tile 64 --grid 80 --trace $out/traces/sk80-$side.json | tail -1
  $d/leanattn cuda bench $f --strategy stream-k --trace $out/traces/sk-$side.json | tail -1
  $d/leanattn cuda bench --model phi-3-medium --batch 8 --ctx 4096 --strategy stream-k --trace $out/traces/phi3-sk-$side.json | tail -1
done
for t in $out/traces/*.json; do echo "== $(basename $t)"; python3 bench/gpu/trace_summary.py $t; done > $out/traces/summary.txt 2>&1
grep -E "^==|makespan|after the wait|partial: merge" $out/traces/summary.txt
xz -9 $out/traces/*.json
timeout 250 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --models -- --lengths host --repeat 50 > $out/ab.log 2>&1; echo "ab rc $? at $SECONDS s"
cat $out/ab/ab.txt
timeout 190 bash bench/gpu/check.sh .devbuild $out/check > /dev/null 2>&1; echo "check rc $? at $SECONDS s"
cat $out/check/summary.txt
grep -B1 FAILED $out/check/*.log | head -20
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q74/run.sh $OUT", carry=[".devbuild-xz-q74"], kind="nvidia-h100-x1") at 18:31 UTC; .devbuild-xz-q74 held the CLI of 8bc79f7 with the one-round-trip shared merge (not committed; README.md describes it) and, as base-*, that of 8bc79f7 (q72).
# v28 (a shared merge loads the host's partial and up to 16 peers' at once, one L2 round trip, and merges them in the
# lone host's groups of 8: the same bits) against v27 (base: q72's build): host-lengths traces of Falcon-7B B=1 16k
# (16 CTAs per output, and the aligned plan) and Llama-3.1-405B B=1 16k, both builds twice; ab.sh (host lengths);
# then one host-lengths validation (test_cuda and the Python GPU tests: the next call, q75).
set -uo pipefail
out=$1; q=.devbuild-xz-q74; mkdir -p $out/traces .devbuild .devbuild-base
xz -dc $q/leanattn.xz > .devbuild/leanattn; xz -dc $q/base-leanattn.xz > .devbuild-base/leanattn; chmod +x .devbuild/leanattn .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for side in base new base new; do
  d=.devbuild; [ $side = base ] && d=.devbuild-base
  $d/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy stream-k --tile 64 --grid 80 --lengths host --trace $out/traces/falcon-sk80-$side-$SECONDS.json | tail -1
  $d/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy stream-k --lengths host --trace $out/traces/falcon-sk-$side-$SECONDS.json | tail -1
  $d/leanattn cuda bench --model llama-3.1-405b --batch 1 --ctx 16384 --strategy stream-k --lengths host --trace $out/traces/405b-sk-$side-$SECONDS.json | tail -1
done 2> $out/bench.err
for t in $out/traces/*.json; do echo "== $(basename $t)"; python3 bench/gpu/trace_summary.py $t; done > $out/traces/summary.txt 2>&1
grep -E "^==|makespan|shared: |reduce: after" $out/traces/summary.txt
xz -9 $out/traces/*.json
timeout 150 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --models -- --lengths host --repeat 50 > $out/ab.log 2>&1; echo "ab rc $? at $SECONDS s"
cat $out/ab/ab.txt
.devbuild/leanattn cuda validate --model falcon-7b --batch 1 --ctx 16384 --tile 64 --grid 80 --strategy stream-k --lengths host > $out/validate.txt 2>&1; echo "validate rc $?"
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

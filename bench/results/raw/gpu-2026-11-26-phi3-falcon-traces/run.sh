#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q50/run.sh $OUT", carry=[".devbuild-xz-q50"], kind="nvidia-h100-x1") at 12:38 UTC; .devbuild-xz-q50 held the stripped leanattn CLI of eb51c1a.
# Per-CTA traces of Phi-3-medium B=8 4k (stream-k, no-split) and Falcon-7B B=1 16k (stream-k, fixed-split 26), and
# cuda bench's times of the same (host and device lengths): where the fixed cost of the shapes behind cuDNN goes.
set -o pipefail
out=$1; q=.devbuild-xz-q50; mkdir -p .devbuild $out/t
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $out/t/machine.txt; date -u >> $out/t/machine.txt
$L cuda bench --model phi-3-medium --batch 8 --ctx 4096 --strategy stream-k --trace $out/t/phi3-sk.json --repeat 100 > $out/t/phi3-sk.txt 2>&1; echo "rc $?"
$L cuda bench --model phi-3-medium --batch 8 --ctx 4096 --strategy no-split --trace $out/t/phi3-ns.json --repeat 100 > $out/t/phi3-ns.txt 2>&1; echo "rc $?"
$L cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy stream-k --trace $out/t/falcon-sk.json --repeat 100 > $out/t/falcon-sk.txt 2>&1; echo "rc $?"
$L cuda bench --model falcon-7b --batch 1 --ctx 16384 --strategy fixed-split --splits 26 --trace $out/t/falcon-fs26.json --repeat 100 > $out/t/falcon-fs26.txt 2>&1; echo "rc $?"
for lengths in host device; do
  $L cuda bench --model phi-3-medium --batch 8 --ctx 4096 --lengths $lengths --repeat 200 > $out/t/phi3-all-$lengths.txt 2>&1
  $L cuda bench --model falcon-7b --batch 1 --ctx 16384 --lengths $lengths --repeat 200 > $out/t/falcon-all-$lengths.txt 2>&1
done
date -u >> $out/t/machine.txt
cat $out/t/*.txt | grep -v "^$" | head -60
(cd $out && tar czf t.tgz t && rm -rf t)

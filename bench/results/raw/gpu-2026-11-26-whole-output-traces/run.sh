#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q54/run.sh $OUT", carry=[".devbuild-xz-q54"], kind="nvidia-h100-x1") at 13:30 UTC; .devbuild-xz-q54 held the stripped leanattn CLI of a8b2963.
# Per-CTA traces of Llama-3.1-405B B=8 4k q_len 4 (256 outputs of 16 rows): stream-k's whole-output plan (256 CTAs)
# against no-split's same CTAs; why the first runs 1.5x slower.
set -o pipefail
out=$1; q=.devbuild-xz-q54; mkdir -p .devbuild $out/t
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
L=.devbuild/leanattn; t=$out/t
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $t/machine.txt; date -u >> $t/machine.txt
$L cuda bench --model llama-3.1-405b --batch 8 --ctx 4096 --q-len 4 --strategy stream-k --trace $t/sk.json --repeat 50 > $t/sk.txt 2>&1; echo "rc $?"
$L cuda bench --model llama-3.1-405b --batch 8 --ctx 4096 --q-len 4 --strategy no-split --trace $t/ns.json --repeat 50 > $t/ns.txt 2>&1; echo "rc $?"
$L cuda bench --model llama-3.1-405b --batch 8 --ctx 4096 --q-len 4 --repeat 100 --lengths host > $t/all-host.txt 2>&1
$L schedule --model llama-3.1-405b --batch 8 --ctx 4096 --q-len 4 --strategy stream-k --format json > $t/sk-plan.json 2>&1
date -u >> $t/machine.txt
cat $t/*.txt
(cd $out && tar czf t.tgz t && rm -rf t)

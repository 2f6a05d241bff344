#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q58/run.sh $OUT", carry=[".devbuild-xz-q58"], kind="nvidia-h100-x1") at 14:49 UTC; .devbuild-xz-q58 held the CLI and libleanattn.so of 2dec591 with kernel.patch applied (not committed) and the CLI of .devbuild-xz-q54 (v22) as the base.
# Kernel v24, second build (the carry in a function of its own, not inlined; the turn loop as v22). (The next segment's first blocks issued into the free stages while a segment ends; the warps' row
# maxima and sums in an area of their own) against v22 (base: the CLI of .devbuild-xz-q54, 2dec591's kernel):
# ab.sh over the targets' and the models' shapes (host lengths, A B A B), then check.sh and sanitize.sh --quick on v24.
set -uo pipefail
out=$1; q=.devbuild-xz-q58; mkdir -p $out .devbuild .devbuild-base
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn
xz -dc $q/base-leanattn.xz > .devbuild-base/leanattn; chmod +x .devbuild-base/leanattn

export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
(cuobjdump --dump-resource-usage .devbuild/libleanattn.so 2>&1 | grep -o "REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*" | sort | uniq -c | sort -rn > $out/resource-usage.txt) || true
timeout 250 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --models -- --lengths host --repeat 50 > $out/ab.log 2>&1; echo "ab rc $? at $SECONDS s"
cat $out/ab/ab.txt
timeout 100 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab-device --models -- --lengths device --repeat 50 > $out/ab-device.log 2>&1; echo "ab device rc $? at $SECONDS s"
cat $out/ab-device/ab.txt
timeout 190 bash bench/gpu/check.sh .devbuild $out/check > /dev/null 2>&1; echo "check rc $? at $SECONDS s"
cat $out/check/summary.txt
grep -B1 FAILED $out/check/*.log | head -20
timeout 100 bash bench/gpu/sanitize.sh $out/sanitize --quick --bin .devbuild/leanattn --deadline-s 80 > /dev/null 2>&1; echo "sanitize rc $? at $SECONDS s"
cat $out/sanitize/sanitize-summary.txt
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Kernel v23 (the host's merge of its peers in one pass of 8 values a thread where v22 took two of 4) against v22
# (a7f6f64's build), host-lengths steps: ab.sh A/B over the targets' and the models' shapes; then check.sh on v23
# (cuda validate over every layout, kernel path and model; 3 sanitizer runs; no test_cuda and no libleanattn.so here: the carry limit),
# and sanitize.sh --quick on every path; the v23 kernels' resource usage (spills).
set -uo pipefail
out=$1; mkdir -p $out .devbuild .devbuild-base
for f in leanattn; do xz -dc .devbuild-xz-q15/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
xz -dc .devbuild-xz-q15/base-leanattn.xz > .devbuild-base/leanattn; chmod +x .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
(cuobjdump --dump-resource-usage .devbuild/libleanattn.so 2>&1 | grep -o "REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*" | sort | uniq -c | sort -rn > $out/resource-usage.txt) || true
timeout 260 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --models -- --lengths host --repeat 50 > /dev/null 2>&1; echo "ab rc $? at $SECONDS s"
cat $out/ab/ab.txt
timeout 170 bash bench/gpu/check.sh .devbuild $out/check > /dev/null 2>&1; echo "check rc $? at $SECONDS s"
cat $out/check/summary.txt
timeout 100 bash bench/gpu/sanitize.sh $out/sanitize --quick --bin .devbuild/leanattn --deadline-s 80 > /dev/null 2>&1; echo "sanitize rc $? at $SECONDS s"
cat $out/sanitize/sanitize-summary.txt
bash bench/gpu/pack_out.sh $out

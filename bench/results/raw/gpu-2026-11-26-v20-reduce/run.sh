#!/usr/bin/env bash
# fixed-split's reduce kernel with one CTA per 256 values of an output (v20): check.sh on device lengths (every path,
# every model, test_cuda, GPU pytest), then main (6ec3812) against v20's run(), then v20's run() against its
# host-lengths steps.
set -uo pipefail
out=$1; mkdir -p $out .devbuild .devbuild-base
for f in leanattn libleanattn.so test_cuda; do xz -dc .devbuild-xz-p5/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
xz -dc .devbuild-xz-p5/base-leanattn.xz > .devbuild-base/leanattn; chmod +x .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab-base-v20 --models > /dev/null 2>&1
bash bench/gpu/ab.sh .devbuild ".devbuild:--lengths host" $out/ab-device-host --models > /dev/null 2>&1
cat $out/ab-base-v20/ab.txt $out/ab-device-host/ab.txt
bash bench/gpu/check.sh .devbuild $out/check > /dev/null 2>&1
cat $out/check/summary.txt
cd $out && tar czf logs.tgz check ab-base-v20 ab-device-host && cp check/summary.txt summary.txt && cp ab-base-v20/ab.txt ab-base-v20.txt && cp ab-device-host/ab.txt ab-device-host.txt && rm -rf check ab-base-v20 ab-device-host
echo "done $SECONDS s"

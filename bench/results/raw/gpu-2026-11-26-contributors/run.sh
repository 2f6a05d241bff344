#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q80/run.sh $OUT", carry=[".devbuild-xz-q78", ".devbuild-xz-q80"], kind="nvidia-h100-x1"), 2026-11-26 19:29 UTC, 3.4 s on the machine (.devbuild-xz-q78: kernel v29, the build of ../gpu-2026-11-26-host-model-shared-trial)
# Stream-k at k CTAs on every output on shapes of few outputs (contributors-shapes.txt), lengths read on the device
# (a lone host merges) and passed by the host (all contributors merge, kernel v27 and later), each twice: the data a
# host-lengths model with shared merges is fitted on.
set -uo pipefail
out=$1; q=.devbuild-xz-q80; mkdir -p .devbuild $out
xz -dc .devbuild-xz-q78/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for round in 1 2; do for L in device host; do
  .devbuild/leanattn cuda bench --shapes $q/contributors-shapes.txt --lengths $L --repeat 50 -o $out/contributors-$L-$round.jsonl 2> $out/contributors-$L-$round.log; echo "$L $round rc $? at $SECONDS s"
done; done
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

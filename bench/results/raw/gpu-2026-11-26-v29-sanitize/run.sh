#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q79/run.sh $OUT", carry=[".devbuild-xz-q78", ".devbuild-xz-q79"], kind="nvidia-h100-x1"), 2026-11-26 19:26 UTC, 117 s on the machine (.devbuild-xz-q78: the build of ../gpu-2026-11-26-host-model-shared-trial, kernel v29)
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on kernel v29's team tiles (bench/gpu/sanitize.sh --only:
# 56-, 64- and 71-row tiles, row blocks of 128, fp16 and bf16), lengths read on the device, then as host-lengths steps.
set -uo pipefail
out=$1; mkdir -p .devbuild $out/device $out/host
xz -dc .devbuild-xz-q78/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
bash bench/gpu/sanitize.sh $out/device --bin .devbuild/leanattn --only "rows|row-blocks" --deadline-s 200; echo "device rc $? at $SECONDS s"
bash bench/gpu/sanitize.sh $out/host --bin .devbuild/leanattn --only "rows|row-blocks" --deadline-s 200 --flags "--lengths host"; echo "host rc $? at $SECONDS s"
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

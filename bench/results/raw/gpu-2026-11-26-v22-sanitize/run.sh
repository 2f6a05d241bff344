#!/usr/bin/env bash
# compute-sanitizer's four tools on kernel v22 (4d5dc91): the kernel paths as steps of run(), then (fp16, quick) as
# host-lengths steps; each within a deadline.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-q12/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
bash bench/gpu/sanitize.sh $out/device --bin $PWD/.devbuild/leanattn --deadline-s 230
bash bench/gpu/sanitize.sh $out/host --quick --bin $PWD/.devbuild/leanattn --flags "--lengths host" --deadline-s $((400 - SECONDS))
cat $out/device/sanitize-summary.txt $out/host/sanitize-summary.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# compute-sanitizer's four tools on kernel v20 (e2717da): every kernel path as steps of run(), then (fp16) as host-lengths steps.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-p7/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
bash bench/gpu/sanitize.sh $out/device --bin $PWD/.devbuild/leanattn --deadline-s 300
bash bench/gpu/sanitize.sh $out/host --quick --bin $PWD/.devbuild/leanattn --flags "--lengths host" --deadline-s $((560 - SECONDS))
bash bench/gpu/pack_out.sh $out

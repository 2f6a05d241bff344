#!/usr/bin/env bash
# Packs everything under OUT into one OUT/results.tgz: one file to copy back from the GPU machine, where a suite, a
# check and traces write dozens (copied one by one, the suite's suite.jsonl was once left behind).
# usage (the last step of a run on the GPU machine): bash bench/gpu/pack_out.sh "$OUT"
set -euo pipefail
out=${1:?usage: pack_out.sh OUT}
tmp=$(mktemp /tmp/results.XXXXXX.tgz)
tar czf "$tmp" -C "$out" .
find "$out" -mindepth 1 -delete
mv "$tmp" "$out/results.tgz"
echo "pack_out.sh: $(du -h "$out/results.tgz" | cut -f1) in $out/results.tgz"

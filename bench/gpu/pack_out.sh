#!/usr/bin/env bash
# Packs everything under OUT into one OUT/results.tgz: the device tool brings back at most 8 files per call, and
# a suite, a check and traces write dozens (a call that returned its first 8 lost the suite's suite.jsonl once).
# usage (last step of a device call): bash bench/gpu/pack_out.sh "$OUT"
set -euo pipefail
out=${1:?usage: pack_out.sh OUT}
tmp=$(mktemp /tmp/results.XXXXXX.tgz)
tar czf "$tmp" -C "$out" .
find "$out" -mindepth 1 -delete
mv "$tmp" "$out/results.tgz"
echo "pack_out.sh: $(du -h "$out/results.tgz" | cut -f1) in $out/results.tgz"

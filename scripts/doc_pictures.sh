#!/usr/bin/env bash
# Draws the pictures of docs/img that the leanattn command makes (the README's and docs/calibration.md's), into OUT.
#   usage: doc_pictures.sh LEANATTN [OUT]          OUT defaults to docs/img: redraws them there
#          doc_pictures.sh LEANATTN --check        draws them apart and fails, naming each, where docs/img differs
# docs/img/calibration-scatter.svg is bench/calibration_scatter.py's (docs/calibration.md, "Results"), not drawn here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
leanattn=${1:?usage: doc_pictures.sh LEANATTN [OUT|--check]}
out=${2:-$root/docs/img}
check=false
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$out" = --check ]; then check=true; out=$work/drawn; fi
mkdir -p "$out"

# The paper's Figure 1 (README, top): its own plan, the paper's rule.
"$leanattn" schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper --format svg -o "$out/figure1-stream-k.svg"
# The paper's B=6, H=48, d=64, 64k problem on an H100 under each strategy (README, `schedule --format svg`).
for strategy in stream-k fixed-split no-split; do
  "$leanattn" schedule --batch 6 --heads 48 --head-dim 64 --ctx 65536 --strategy "$strategy" --format svg -o "$out/h100-b6-h48-64k-$strategy.svg"
done
# Measured beside simulated (docs/calibration.md): traces of kernel v34 on an H100, under the shipped fit.
tar -xJf "$root/bench/results/raw/gpu-2026-11-27-v34-calibration/cal-device/traces.tar.xz" -C "$work" trace-llama-b1-16k.json trace-ragged-b8.json
for trace in llama-b1-16k ragged-b8; do
  "$leanattn" simulate --kernel leanattn-h100 --trace "$work/trace-$trace.json" --format svg -o "$out/trace-vs-sim-$trace.svg"
done

if $check; then
  stale=0
  for drawn in "$out"/*.svg; do
    name=$(basename "$drawn")
    if ! cmp -s "$drawn" "$root/docs/img/$name"; then
      echo "docs/img/$name is not what the command draws today: scripts/doc_pictures.sh LEANATTN redraws it" >&2
      stale=1
    fi
  done
  exit $stale
fi

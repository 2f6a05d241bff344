#!/usr/bin/env bash
# The main job, for a newcomer: set up (apt-get), build, show the paper's Figure 1 schedule, a real H100
# problem under all three strategies, what the simulator predicts for it, then a CPU run of LeanAttention
# checked against a float64 reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LEANATTN_BUILD_DIR:-$root/build}
echo "setting up and building (a few minutes the first time)..."
"$root/scripts/build.sh" >/dev/null
la() { echo; echo "\$ leanattn $*"; "$build/apps/leanattn" "$@"; }

echo "== 1. The LeanAttention paper's Figure 1: 5 SMs, 2 heads x 5 LeanTiles, stream-k under the paper's rule =="
la schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280 --stream-k-rule paper --check
echo; echo "   ... and under the default rule (aligned), which finds a split costs this toy GPU more than it balances:"
la schedule --device paper-5sm --heads 2 --head-dim 64 --ctx 1280

echo; echo "== 2. H100, batch 6 x 48 heads, head-dim 64, 64k context: the three strategies side by side =="
for s in stream-k fixed-split no-split; do
  la schedule --device h100-sxm --batch 6 --heads 48 --head-dim 64 --ctx 65536 --strategy "$s"
done
if "$build/apps/leanattn" --help | grep -q '^  simulate'; then
  la simulate --device h100-sxm --batch 6 --heads 48 --head-dim 64 --ctx 65536 --strategy all
  echo; echo "   ... and Llama-3-8B with a ragged batch under leanattn's own kernel, as fitted on an H100 (docs/calibration.md);"
  echo "   --strategy auto picks the plan this model predicts fastest:"
  la simulate --kernel leanattn-h100 --model llama-3-8b --batch 8 --ctx 16000,900,3000,12000,500,7000,2500,10000 --strategy all
  la schedule --model llama-3-8b --batch 8 --ctx 16000,900,3000,12000,500,7000,2500,10000 --strategy auto --format json -o /dev/null
  echo "   (what the kernels measure on an H100: README.md, \"Measured on an H100\"; how well the fitted models predict"
  echo "   measured sweeps, kernel v20's (bench/results/raw/gpu-2026-11-26-calibration-v20-h100/cal-device/) to v34's: docs/calibration.md)"
fi

if "$build/apps/leanattn" --help | grep -q '^  cpu'; then
  echo; echo "== 3. Run it for real on this CPU, checked against float64 (exit 1 over tolerance) =="
  la cpu --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --ctx 3000,700 --dtype fp16 --strategy all
fi

#!/usr/bin/env bash
# The paper's Figures 7-10 predicted with leanattn's kernel model (data/kernels/leanattn-h100.json, fitted on an
# H100) instead of the paper's kernel: the A100 on paper only, from its published SM count and HBM peak (its copy
# bandwidth taken as the H100's measured copy/peak ratio, 0.892, times 2,039 GB/s: data/devices/README.md).
# Writes bench/results/calibration-paper-figures.md. usage: bench/calibration_paper_figures.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
la="$build/apps/leanattn"
out=$root/bench/results/calibration-paper-figures.md
cases=(
  "Fig. 7(a) A100, B=4, H=32, d=64, ctx 1k-256k|--device a100-80gb --batch 4 --heads 32 --head-dim 64 --vary ctx --values 1k,4k,16k,64k,256k"
  "Fig. 7(b) A100, B=4, d=64, ctx 256k, heads 8-64|--device a100-80gb --batch 4 --head-dim 64 --ctx 262144 --vary heads --values 8,16,24,32,40,48,56,64"
  "Fig. 7(c) A100, H=32, d=64, ctx 64k, batch 1-32|--device a100-80gb --heads 32 --head-dim 64 --ctx 65536 --vary batch --values 1,2,4,6,8,16,32"
  "Fig. 8(a) H100, B=6, H=48, d=64, ctx 4k-64k|--device h100-sxm --batch 6 --heads 48 --head-dim 64 --vary ctx --values 4k,8k,16k,32k,64k"
  "Fig. 8(b) H100, B=6, d=64, ctx 64k, heads 8-64|--device h100-sxm --batch 6 --head-dim 64 --ctx 65536 --vary heads --values 8,16,24,32,40,48,56,64"
  "Fig. 8(c) H100, H=48, d=64, ctx 64k, batch 1-32|--device h100-sxm --heads 48 --head-dim 64 --ctx 65536 --vary batch --values 1,2,4,6,8,16,32"
  "Fig. 9(a) 8xA100, B=4, H=256, d=64, ctx 1k-1M|--device a100-80gb-x8 --batch 4 --heads 256 --head-dim 64 --vary ctx --values 1k,4k,16k,64k,256k,1M"
  "Fig. 9(b) 8xA100, B=4, d=64, ctx 256k, heads 64-512|--device a100-80gb-x8 --batch 4 --head-dim 64 --ctx 262144 --vary heads --values 64,128,160,256,384,512"
  "Fig. 10 A100, B=8, H=32, d=64, max ctx 64k, mean/max 20-100 %|--device a100-80gb --batch 8 --heads 32 --head-dim 64 --ctx 65536 --vary ragged --values 20,40,60,80,100"
)
{
  echo "# The paper's Figures 7-10 under leanattn's kernel model"
  echo
  echo "Made by \`bench/calibration_paper_figures.sh\` ($(date -u +%Y-%m-%d)): \`leanattn sweep --kernel leanattn-h100\`, the kernel model"
  echo "fitted on an H100 (docs/calibration.md), on each figure's device file. The A100 rows are a prediction on paper only"
  echo "(no A100 was measured; its compute and latency terms are the H100's, its bandwidth the published peak x 0.892)."
  echo "LA/FD = fixed-split / stream-k, LA/FA2 = no-split / stream-k: one kernel's costs under three plans."
  for c in "${cases[@]}"; do
    IFS='|' read -r title args <<<"$c"
    echo
    echo "## $title"
    echo
    echo "\`leanattn sweep --kernel leanattn-h100 $args\`"
    echo
    echo '```'
    # shellcheck disable=SC2086
    "$la" sweep --kernel leanattn-h100 $args --no-progress
    echo '```'
  done
} > "$out"
echo "wrote $out"

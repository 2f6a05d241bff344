#!/usr/bin/env bash
# The LeanAttention paper's evaluated setups (Figures 7-10), simulated. Writes the tables to
# bench/results/sim-paper-comparison.md and the speedup plots to bench/results/sim-paper/*.svg;
# docs/paper-comparison.md sets them next to the speedups the paper quotes.
# usage: bench/sim_paper_comparison.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target leanattn >/dev/null
la="$build/apps/leanattn"
out=$root/bench/results/sim-paper-comparison.md
figs=$root/bench/results/sim-paper
mkdir -p "$figs"
cases=(
  "fig7a|Fig. 7(a) A100, B=4, H=32, d=64, ctx 1k-256k|--device a100-80gb --batch 4 --heads 32 --head-dim 64 --vary ctx --values 1k,2k,4k,8k,16k,32k,64k,128k,256k"
  "fig7b|Fig. 7(b) A100, B=4, d=64, ctx 256k, heads 8-64|--device a100-80gb --batch 4 --head-dim 64 --ctx 262144 --vary heads --values 8,16,24,32,40,48,56,64"
  "fig7c|Fig. 7(c) A100, H=32, d=64, ctx 64k, batch 1-32|--device a100-80gb --heads 32 --head-dim 64 --ctx 65536 --vary batch --values 1,2,4,6,8,16,32"
  "fig8a|Fig. 8(a) H100, B=6, H=48, d=64, ctx 4k-64k|--device h100-sxm --batch 6 --heads 48 --head-dim 64 --vary ctx --values 4k,8k,16k,32k,64k"
  "fig8b|Fig. 8(b) H100, B=6, d=64, ctx 64k, heads 8-64|--device h100-sxm --batch 6 --head-dim 64 --ctx 65536 --vary heads --values 8,16,24,32,40,48,56,64"
  "fig8c|Fig. 8(c) H100, H=48, d=64, ctx 64k, batch 1-32|--device h100-sxm --heads 48 --head-dim 64 --ctx 65536 --vary batch --values 1,2,4,6,8,16,32"
  "fig9a|Fig. 9(a) 8xA100, B=4, H=256, d=64, ctx 1k-1M|--device a100-80gb-x8 --batch 4 --heads 256 --head-dim 64 --vary ctx --values 1k,4k,16k,64k,256k,1M"
  "fig9b|Fig. 9(b) 8xA100, B=4, d=64, ctx 256k, heads 64-512|--device a100-80gb-x8 --batch 4 --head-dim 64 --ctx 262144 --vary heads --values 64,128,160,256,384,512"
  "fig10|Fig. 10 A100, B=8, H=32, d=64, max ctx 64k, mean/max 20-100 %|--device a100-80gb --batch 8 --heads 32 --head-dim 64 --ctx 65536 --vary ragged --values 20,30,40,50,60,70,80,90,100"
)
{
  echo "# The paper's setups, simulated"
  echo
  echo "Made by \`bench/sim_paper_comparison.sh\` ($(date -u +%Y-%m-%d)) with the device files in data/devices/. LA/FD = fixed-split"
  echo "(Flash-Decoding, FlashAttention-2's split heuristic) / stream-k makespan; LA/FA2 = no-split / stream-k. Discussion:"
  echo "docs/paper-comparison.md. Plots: bench/results/sim-paper/<case>.svg. stream-k is planned by the paper's rule"
  echo "(\`--stream-k-rule paper\`): these are the paper's setups; docs/planner.md compares the two rules."
  for c in "${cases[@]}"; do
    IFS='|' read -r name title args <<<"$c"
    echo
    echo "## $title"
    echo
    echo "\`leanattn sweep $args\`"
    echo
    echo '```'
    "$la" sweep $args --stream-k-rule paper --no-progress
    echo '```'
    "$la" sweep $args --stream-k-rule paper --no-progress --format svg -o "$figs/$name.svg"
  done
} >"$out"
cat "$out"

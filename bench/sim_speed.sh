#!/usr/bin/env bash
# Simulator speed against its targets (stated in bench/sim_speed.cpp): in-process (bench_sim_speed) and
# whole-process `leanattn simulate` / `leanattn sweep`. Writes bench/results/sim-speed.md.
# usage: bench/sim_speed.sh [build-dir]        (builds the targets it needs first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target bench_sim_speed leanattn >/dev/null
out=$root/bench/results/sim-speed.md
big="simulate --device a100-80gb-x8 --batch 4 --heads 256 --head-dim 64 --ctx 1048576"
values=$(seq -s, 1024 1024 1048576)   # 1,024 context lengths: 1k, 2k, ... 1M
sweep="sweep --device h100-sxm --batch 4 --heads 32 --head-dim 128 --vary ctx --format csv --no-progress"
best() {  # best-of-5 wall ms of a command
  local b=999999
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 )); (( ms < b )) && b=$ms
  done
  echo $b
}
big_ms=$(best "$build/apps/leanattn" $big)
svg_ms=$(best "$build/apps/leanattn" $big --format svg)
sweep_ms=$(best "$build/apps/leanattn" $sweep --values "$values")
{
  echo "# Simulator speed"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(lscpu | sed -n 's/^Model name: *//p') ($(nproc --all) cores; one core used), Release build."
  echo "Command: \`bench/sim_speed.sh\`. Targets: the 1M-token case on 864 SMs, all three strategies, < 100 ms;"
  echo "≥ 1,000 small configurations per second in a sweep."
  echo
  echo "## In-process (bench_sim_speed: plan + simulate, median of 21)"
  echo
  echo '```'
  "$build/bench/bench_sim_speed"
  echo '```'
  echo
  echo "## Whole process (best of 5, including start-up and output)"
  echo
  echo "- \`leanattn $big\`: ${big_ms} ms (text table, three strategies)"
  echo "- the same with \`--format svg\` (per-SM timelines of 864 SMs drawn): ${svg_ms} ms"
  echo "- \`leanattn $sweep --values 1k,2k,...,1M\` (1,024 values x 3 strategies, up to 16,384 LeanTiles per output): ${sweep_ms} ms"
} >"$out"
cat "$out"

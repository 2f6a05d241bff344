#!/usr/bin/env bash
# Planning speed: plan + tabulate + validate in-process, then `leanattn schedule` to JSON end to end, for
# 1,024 output tiles x 1M tokens on 864 SMs, stream-k under the aligned rule (default) and the paper's rule.
# Writes bench/results/plan-speed.md.
# usage: bench/plan_speed.sh [build-dir]        (builds the targets it needs first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target bench_plan_speed leanattn >/dev/null
out=$root/bench/results/plan-speed.md
json=$(mktemp --suffix=.json)
shown="schedule --device a100-80gb-x8 --batch 4 --heads 256 --head-dim 64 --ctx 1048576 --format json -o FILE"
args="${shown% FILE} $json"
# Best of 5 whole-process runs, in ms.
best_ms() {
  local best=999999
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N); "$build/apps/leanattn" "$@"; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 )); (( ms < best )) && best=$ms
  done
  echo $best
}
best_paper=$(best_ms $args --stream-k-rule paper)
best=$(best_ms $args)
{
  echo "# Planning speed"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores), Release build."
  echo "Command: \`bench/plan_speed.sh\`"
  echo
  echo "## Plan, spell out, validate (in-process, median of 200)"
  echo
  echo "stream-k (paper) runs the closed forms that were all of stream-k's planning before the aligned rule: the"
  echo "before. stream-k (aligned) adds the cost model's search over grids and snaps (core/stream_k_cost.hpp)."
  echo
  echo '```'
  "$build/bench/bench_plan_speed"
  echo '```'
  echo
  echo "## \`leanattn $shown\` (whole process, best of 5)"
  echo
  echo "- aligned rule (default): ${best} ms wall, JSON of $(stat -c %s "$json") bytes ($(grep -c '"cta"' "$json") CTAs)"
  echo "- \`--stream-k-rule paper\`: ${best_paper} ms wall"
} >"$out"
rm -f "$json"
cat "$out"

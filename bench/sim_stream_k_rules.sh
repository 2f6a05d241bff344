#!/usr/bin/env bash
# stream-k's two rules in the simulator: the shapes where the paper's split lost to no-split on the H100, and
# others, with `leanattn simulate` under --stream-k-rule paper and aligned; then bench_stream_k_rules over
# random shapes. Simulated makespans are model predictions, not GPU measurements.
# Writes bench/results/sim-stream-k-rules.md.
# usage: bench/sim_stream_k_rules.sh [build-dir]        (builds the targets it needs first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target leanattn bench_stream_k_rules >/dev/null
la="$build/apps/leanattn"
out=$root/bench/results/sim-stream-k-rules.md
shapes=(
  "--batch 32 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "--batch 16 --heads 64 --kv-heads 8 --head-dim 128 --ctx 4096"
  "--batch 4 --heads 32 --head-dim 64 --ctx 1024"
  "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768"
  "--batch 6 --heads 48 --head-dim 64 --ctx 65536"
  "--batch 8 --heads 32 --kv-heads 8 --head-dim 128 --ctx 65536,1024,2048,512,30000,4096,100,8000"
)
# One table row: shape, CTAs per SM, then each plan's makespan (grid[, snap]) and aligned / best baseline.
row() {
  local shape=$1 per_sm=$2
  local paper aligned snap
  paper=$("$la" simulate $shape --device h100-sxm --ctas-per-sm "$per_sm" --stream-k-rule paper --format json)
  aligned=$("$la" simulate $shape --device h100-sxm --ctas-per-sm "$per_sm" --format json)
  snap=$("$la" schedule $shape --device h100-sxm --ctas-per-sm "$per_sm" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["snap_tiles"])')
  python3 - "$shape" "$per_sm" "$paper" "$aligned" "$snap" <<'EOF'
import json, sys
shape, per_sm = sys.argv[1], sys.argv[2]
paper, aligned = (json.loads(a)["results"] for a in sys.argv[3:5])
snap = sys.argv[5]
by = {r["strategy"]: r for r in aligned}
p, a, f, n = paper[0], by["stream-k"], by["fixed-split"], by["no-split"]
best = min(f["makespan_us"], n["makespan_us"])
print(f"| `{shape}` | {per_sm} | {p['makespan_us']:.1f} ({p['grid']}) | {a['makespan_us']:.1f} ({a['grid']}, snap {snap}) "
      f"| {f['makespan_us']:.1f} ({f['grid']}) | {n['makespan_us']:.1f} ({n['grid']}) | {a['makespan_us'] / best:.3f} | {p['makespan_us'] / a['makespan_us']:.3f} |")
EOF
}
{
  echo "# stream-k's two rules, simulated"
  echo
  echo "Made by \`bench/sim_stream_k_rules.sh\` ($(date -u +%Y-%m-%d)) with data/devices/h100-sxm.json's timing, which is not"
  echo "calibrated: these are model predictions, not GPU measurements. 1 CTA per SM is what the kernel's occupancy query"
  echo "gives on the H100 (bench/results/gpu-vs-sim-small.md), 2 what the device file says. Per plan: makespan in us"
  echo "(grid; for the aligned rule also the snap it chose). Commands: \`leanattn simulate <shape> --device h100-sxm"
  echo "--ctas-per-sm N [--stream-k-rule paper]\`, \`leanattn schedule <shape> ... --format json\` for the snap."
  echo
  echo "| shape | CTAs/SM | stream-k paper | stream-k aligned | fixed-split | no-split | aligned / best baseline | paper / aligned |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for s in "${shapes[@]}"; do
    for per_sm in 1 2; do row "$s" "$per_sm"; done
  done
  echo
  echo "## Random shapes (\`bench_stream_k_rules\`)"
  echo
  echo "How often stream-k under the aligned rule simulates more than 0.1% slower than each other plan, and the worst ratio."
  echo
  echo '```'
  "$build/bench/bench_stream_k_rules"
  echo '```'
} >"$out"
cat "$out"

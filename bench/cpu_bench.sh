#!/usr/bin/env bash
# CPU executor speed (issue 3, item 7): B=1, H=32, d=128, ctx=64k, stream-k, in fp16, bf16 and fp32, with
# all cores and with one; K and V read rate against this machine's plain read bandwidth, measured in the
# same run. Writes bench/results/cpu-<host>.md. usage: bench/cpu_bench.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target leanattn >/dev/null
la=$build/apps/leanattn
cores=$(nproc)
out=$root/bench/results/cpu-$(hostname -s | tr -c 'a-zA-Z0-9-\n' '-' | cut -c1-24).md
args="--heads 32 --head-dim 128 --ctx 65536 --strategy stream-k --repeat 5 --format json"
row() {  # dtype threads
  "$la" cpu $args --dtype "$1" --threads "$2" | python3 -c "
import json, sys
r = json.load(sys.stdin)
print(f\"| $1 | $2 | {r['ms']:.1f} | {r['gbps']:.1f} | {r['read_gbps']:.1f} | {r['gbps'] / r['read_gbps']:.2f} | {r['rel_l2_err']:.1e} |\")"
}
{
  echo "# CPU executor speed"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(lscpu | sed -n 's/^Model name: *//p') ($cores cores), Release build."
  echo "Command: \`bench/cpu_bench.sh\` = \`leanattn cpu $args --dtype D --threads T\`"
  echo "(B=1, H=32, d=128, ctx=65,536: 1,074 MB of K and V in fp16/bf16, 2,147 MB in fp32; the device plan is h100-sxm's"
  echo "264 CTAs; read GB/s = this machine's plain multi-threaded read bandwidth, measured in the same run; best of 5)."
  echo
  echo "| dtype | threads | ms | K+V GB/s | read GB/s | of read | rel L2 |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for dt in fp16 bf16 fp32; do
    row "$dt" "$cores"
    row "$dt" 1
  done
} >"$out"
cat "$out"

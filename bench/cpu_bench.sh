#!/usr/bin/env bash
# CPU executor speed: B=1, H=32, d=128, ctx=64k, stream-k, in fp16, bf16 and fp32, with
# all cores and with one; K and V read rate against this machine's plain read bandwidth, measured in the
# same run, and the speedup from 1 thread to all. Writes bench/results/cpu-<machine>.md and .json.
#
# usage: bench/cpu_bench.sh [build-dir]
#   MACHINE=name   names the result files (default: the host name)
#   LEANATTN=path  uses that binary instead of building one
#   ROUNDS=n       whole sweeps (default 3): a shared machine's bandwidth drifts, the table shows the median
# Run it on a quiet machine: the read bandwidth and the executor share the memory bus with anything else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
if [[ -z "${LEANATTN:-}" ]]; then
  cmake -S "$root" -B "$build" -G Ninja >/dev/null
  cmake --build "$build" --target leanattn >/dev/null
  LEANATTN=$build/apps/leanattn
fi
machine=${MACHINE:-$(hostname -s | tr -c 'a-zA-Z0-9-\n' '-' | cut -c1-24)}
out=$root/bench/results/cpu-$machine
cores=$(nproc)
args="--heads 32 --head-dim 128 --ctx 65536 --strategy stream-k --repeat 10 --format json"
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for round in $(seq "${ROUNDS:-3}"); do
  for dt in fp16 bf16 fp32; do
    for threads in "$cores" 1; do
      "$LEANATTN" cpu $args --dtype "$dt" --threads "$threads" |
        python3 -c "import json, sys; r = json.load(sys.stdin); r['dtype'] = '$dt'; r['round'] = $round; print(json.dumps(r))" >>"$runs"
    done
  done
done

python3 "$root/bench/cpu_bench_report.py" "$runs" "$out" "$cores" "$(lscpu | sed -n 's/^Model name: *//p')" \
  "leanattn cpu $args --dtype D --threads T"

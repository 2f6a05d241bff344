#!/usr/bin/env bash
# CPU executor speed (issue 3, item 7): B=1, H=32, d=128, ctx=64k, stream-k, in fp16, bf16 and fp32, with
# all cores and with one; K and V read rate against this machine's plain read bandwidth, measured in the
# same run, and the speedup from 1 thread to all. Writes bench/results/cpu-<machine>.md and .json.
#
# usage: bench/cpu_bench.sh [build-dir]        (MACHINE=name overrides the host name in the file names;
#                                               LEANATTN=path uses that binary instead of building one)
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
for dt in fp16 bf16 fp32; do
  for threads in "$cores" 1; do
    "$LEANATTN" cpu $args --dtype "$dt" --threads "$threads" |
      python3 -c "import json, sys; r = json.load(sys.stdin); r['dtype'] = '$dt'; print(json.dumps(r))" >>"$runs"
  done
done

python3 - "$runs" "$out" "$cores" "$(lscpu | sed -n 's/^Model name: *//p')" "leanattn cpu $args --dtype D --threads T" <<'EOF'
import datetime, json, sys
runs_file, out, cores, model, command = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
runs = [json.loads(line) for line in open(runs_file)]
date = datetime.date.today().isoformat()
by = {(r["dtype"], r["threads"]): r for r in runs}
for r in runs:
    r["fraction_of_read"] = r["gbps"] / r["read_gbps"]
    r["speedup_vs_1_thread"] = by[(r["dtype"], 1)]["ms"] / r["ms"]
json.dump({"date": date, "cpu": model, "cores": cores, "command": command, "runs": runs}, open(out + ".json", "w"), indent=2)
lines = [
    "# CPU executor speed", "",
    f"Measured {date} on {model} ({cores} cores), Release build. Command (`bench/cpu_bench.sh`):",
    f"`{command}`, D in fp16/bf16/fp32, T = {cores} and 1.", "",
    "B=1, H=32, d=128, ctx=65,536: 1,074 MB of K and V in fp16/bf16, 2,147 MB in fp32; the plan is h100-sxm's 264",
    "stream-k CTAs, played by T threads. ms: best of 10 runs. read GB/s: this machine's plain read bandwidth with T",
    "threads (a streaming sum of a buffer of at least 4x the last-level cache, best of 5), measured in the same run.", "",
    "| dtype | threads | ms | K+V GB/s | read GB/s | of read | speedup vs 1 thread | rel L2 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
]
for r in runs:
    lines.append(f"| {r['dtype']} | {r['threads']} | {r['ms']:.1f} | {r['gbps']:.1f} | {r['read_gbps']:.1f} | "
                 f"{r['fraction_of_read']:.2f} | {r['speedup_vs_1_thread']:.2f} | {r['rel_l2_err']:.1e} |")
open(out + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF

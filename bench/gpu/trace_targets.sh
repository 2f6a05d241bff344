#!/usr/bin/env bash
# Per-CTA traces of the named target shapes under every strategy, each summarized by trace_summary.py: where
# a decode's fixed cost goes, term by term. Writes OUT/trace-NAME.json, OUT/bench-NAME.json and
# OUT/traces.txt (the summaries beside each strategy's median from the same `cuda bench` call).
# usage (on the GPU machine, from the repository root): bench/gpu/trace_targets.sh DEVBUILD OUT [--dtype bf16]
set -uo pipefail
dev=$1; out=$2; shift 2
mkdir -p "$out"
export LEANATTN_DATA=$PWD/data
targets=(
  "b16-h8kv1-d128-8k:--batch 16 --heads 8 --kv-heads 1 --head-dim 128 --ctx 8192"
  "b1-h32kv8-d128-32k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768"
  "b4-h32kv32-d64-1k:--batch 4 --heads 32 --head-dim 64 --ctx 1024"
  "b1-h32kv8-d128-2k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "b32-h32kv8-d128-2k:--batch 32 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "b16-h64kv8-d128-4k:--batch 16 --heads 64 --kv-heads 8 --head-dim 128 --ctx 4096"
)
for t in "${targets[@]}"; do
  name=${t%%:*}; flags=${t#*:}
  # shellcheck disable=SC2086
  "$dev/leanattn" cuda bench $flags "$@" --strategy all --format json --trace "$out/trace-$name.json" >"$out/bench-$name.json" 2>"$out/bench-$name.err"
  {
    echo "== $name ($flags $*)"
    python3 - "$out/bench-$name.json" <<'PY' 2>&1
import json, sys
results = json.load(open(sys.argv[1]))["results"]
print("  medians (us): " + ", ".join(f"{r['strategy']} {r['median_us']:.1f}" for r in results))
PY
    python3 bench/gpu/trace_summary.py "$out/trace-$name.json" 2>&1 | tail -n +2
  } >>"$out/traces.txt"
done
cat "$out/traces.txt"

#!/usr/bin/env bash
# Per-CTA traces of the named target shapes under every strategy, each summarized by trace_summary.py: where
# a decode's fixed cost goes, term by term. Writes OUT/trace-NAME.json, OUT/bench-NAME.json and
# OUT/traces.txt (the summaries beside each strategy's median from the same `cuda bench` call).
# usage (on the GPU machine, from the repository root): bench/gpu/trace_targets.sh DEVBUILD OUT [--dtype bf16]
set -uo pipefail
dev=$1; out=$2; shift 2
mkdir -p "$out"
export LEANATTN_DATA=$PWD/data
# shellcheck source=bench/gpu/target_shapes.sh
source "$(dirname "$0")/target_shapes.sh"
for t in "${target_shapes[@]}"; do
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

#!/usr/bin/env bash
# Two builds of leanattn timed side by side in one call: the only fair test of a kernel change, since another
# day's GPU (another H100, another driver state) moves latency-bound times by more than most changes do.
# Each shape runs A, B, A, B (`cuda bench --strategy all`, graph replay after an L2 flush, median of 100), so
# drift shows as A1 != A2; the table gives B/A per strategy from the pairs' medians. Optionally the suite's
# ragged section through each build's libleanattn.so (the library plans for the cache's capacity, the CLI for
# the actual lengths: only the library shows how a capacity plan walks shorter, ragged lengths).
#
# usage (on the GPU machine, from the repository root):
#   bench/gpu/ab.sh DEV_A DEV_B OUT [--models] [--ragged] [--shapes FILE] [-- extra cuda-bench flags, e.g. --dtype bf16]
#   DEV_A, DEV_B: folders holding leanattn and libleanattn.so (bench/gpu/prepare.sh makes .devbuild; copy it
#   aside before building the other version), each optionally followed by flags for its side alone after a colon
#   (`.devbuild:--lengths host`: one build, two ways of running it)
#   --models: the model shapes of target_shapes.sh too
#   --shapes FILE: these shapes instead, one NAME:cuda-bench-flags a line (# comments and blank lines skipped)
#   --strategy S: time this strategy (e.g. auto) instead of all three; its row shows each side's plan (strategy, grid)
# Writes OUT/ab.txt (the table), OUT/A-*.json and OUT/B-*.json (every cuda bench result).
set -uo pipefail
a=${1%%:*}; b=${2%%:*}; out=$3
a_flags=""; b_flags=""
case $1 in *:*) a_flags=${1#*:} ;; esac
case $2 in *:*) b_flags=${2#*:} ;; esac
shift 3
ragged="" models="" shapes_file="" strategy=all
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --ragged) ragged=1 ;;
    --models) models=1 ;;
    --shapes) shift; shapes_file=${1:?ab.sh: --shapes needs a file} ;;
    --strategy) shift; strategy=${1:?ab.sh: --strategy needs a name} ;;
    *) echo "ab.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
# shellcheck source=bench/gpu/target_shapes.sh
source "$(dirname "$0")/target_shapes.sh"
shapes=("${target_shapes[@]}"  # and three the targets lack: a long GQA context, group 2, a long MHA (CUDA-core) one
  "b1-h32kv8-d128-64k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 65536"
  "b1-h32kv16-d64-16k:--batch 1 --heads 32 --kv-heads 16 --head-dim 64 --ctx 16384"
  "b1-h32kv32-d128-16k:--batch 1 --heads 32 --head-dim 128 --ctx 16384")
[ -n "$models" ] && shapes+=("${model_shapes[@]}")
if [ -n "$shapes_file" ]; then
  shapes=()
  while IFS= read -r line; do
    case $line in ''|'#'*) ;; *) shapes+=("$line") ;; esac
  done < "$shapes_file"
fi
for s in "${shapes[@]}"; do
  name=${s%%:*}; flags=${s#*:}
  for round in 1 2; do
    for side in A B; do
      dev=$a side_flags=$a_flags; [ "$side" = B ] && dev=$b side_flags=$b_flags
      # shellcheck disable=SC2086
      "$dev/leanattn" cuda bench $flags $side_flags "$@" --strategy "$strategy" --format json >"$out/$side-$name-$round.json" 2>"$out/$side-$name-$round.err"
    done
  done
done
python3 - "$out" "$strategy" "${shapes[@]}" <<'PY' | tee "$out/ab.txt"
import json, pathlib, statistics, sys
out, asked = pathlib.Path(sys.argv[1]), sys.argv[2]
names = [s.split(":", 1)[0] for s in sys.argv[3:]]

def medians(side, name, rnd):
    """{strategy: median us}; with one strategy asked (auto), keyed by it, each side's plan noted in `plans`."""
    try:
        results = json.loads((out / f"{side}-{name}-{rnd}.json").read_text())["results"]
    except (OSError, ValueError, KeyError):
        return {}
    if asked != "all" and results:
        r0 = results[0]
        plans.setdefault((name, side), f"{r0['strategy']} grid {r0.get('grid')} splits {r0.get('splits')}")
        return {asked: results[0]["median_us"]}
    return {r["strategy"]: r["median_us"] for r in results}

plans = {}

print(f"{'shape':22} {'strategy':12} {'A1 us':>8} {'B1 us':>8} {'A2 us':>8} {'B2 us':>8} {'B/A':>6}")
for name in names:
    runs = {(side, rnd): medians(side, name, rnd) for side in "AB" for rnd in (1, 2)}
    for strategy in runs[("A", 1)] or runs[("B", 1)]:
        cells = [runs[(side, rnd)].get(strategy) for rnd in (1, 2) for side in "AB"]
        pairs = [b / a for a, b in ((cells[0], cells[1]), (cells[2], cells[3])) if a and b]
        ratio = f"{statistics.median(pairs):6.3f}" if pairs else "     -"
        shown = " ".join(f"{c:8.1f}" if c else "       -" for c in cells)
        print(f"{name:22} {strategy:12} {shown} {ratio}")
        if (name, "A") in plans or (name, "B") in plans:
            print(f"{'':22} plans: A {plans.get((name, 'A'), '-')}, B {plans.get((name, 'B'), '-')}")
PY
if [ -n "$ragged" ]; then
  for round in 1 2; do  # A, B, A, B, as above: drift shows as round 1 != round 2
    for side in A B; do
      dev=$a; [ "$side" = B ] && dev=$b
      LEANATTN_LIBRARY=$PWD/$dev/libleanattn.so python3 bench/gpu/suite.py --out "$out/suite-$side-$round" --sections ragged \
        --flashinfer off --leanattn-bin "$dev/leanattn" --budget-s 90 >/dev/null 2>&1
      echo "== ragged section, build $side, round $round" | tee -a "$out/ab.txt"
      grep "ragged" "$out/suite-$side-$round/suite.log" | grep "stream-k" | tee -a "$out/ab.txt"
    done
  done
fi

#!/usr/bin/env bash
# The aligned rule weighing one output per CTA beyond the resident grid for row blocks (and a later block's
# side-by-side re-read in its cost model): old plan against new on every shape where it changes, one binary (this
# tree's), both plans given as --grid and --snap flags, A (old) B (new) A B, the new one validated first.
set -uo pipefail
out=$1; mkdir -p $out/runs
mkdir -p .devbuild-G; xz -dc .devbuild-xz9/leanattn-G.xz > .devbuild-G/leanattn; chmod +x .devbuild-G/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
i=0
while IFS='|' read -r shape before after; do
  i=$((i+1)); [ $SECONDS -gt 500 ] && { echo "deadline: stopped before pair $i"; break; }
  for side in B; do .devbuild-G/leanattn cuda validate $shape $after > $out/runs/$i-validate.txt 2>&1 || echo "VALIDATE FAILED $i: $shape $after"; done
  for round in 1 2; do
    .devbuild-G/leanattn cuda bench $shape $before --format json > $out/runs/$i-A-$round.json 2>$out/runs/$i-A-$round.err
    .devbuild-G/leanattn cuda bench $shape $after --format json > $out/runs/$i-B-$round.json 2>$out/runs/$i-B-$round.err
  done
done < .devbuild-xz9/pairs.txt
python3 - $out .devbuild-xz9/pairs.txt <<'PY' | tee $out/side-by-side.txt
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1]); pairs = pathlib.Path(sys.argv[2]).read_text().splitlines()
def t(i, side, r):
    try:
        res = json.loads((out / "runs" / f"{i}-{side}-{r}.json").read_text())["results"][0]
        return res["median_us"], res.get("grid")
    except Exception as e:
        return None, None
print(f"{'problem':70} {'before':28} {'after':28} {'A1':>7} {'B1':>7} {'A2':>7} {'B2':>7} {'B/A':>6}")
ratios = []
for i, line in enumerate(pairs, 1):
    shape, before, after = line.split("|")
    (a1, ga), (b1, gb), (a2, _), (b2, _) = t(i, "A", 1), t(i, "B", 1), t(i, "A", 2), t(i, "B", 2)
    rs = [b / a for a, b in ((a1, b1), (a2, b2)) if a and b]
    r = statistics.median(rs) if rs else float("nan"); ratios.append(r)
    f = lambda x: f"{x:7.1f}" if x else "      -"
    print(f"{shape:70} {before + f' ({ga})':28} {after + f' ({gb})':28} {f(a1)} {f(b1)} {f(a2)} {f(b2)} {r:6.3f}")
ok = [r for r in ratios if r == r]
print(f"B/A over {len(ok)} problems: median {statistics.median(ok):.3f}, min {min(ok):.3f}, max {max(ok):.3f}; geometric mean {statistics.geometric_mean(ok):.3f}")
PY
echo "done $SECONDS s"

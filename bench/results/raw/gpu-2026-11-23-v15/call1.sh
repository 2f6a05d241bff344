#!/usr/bin/env bash
# v15 device call: check, A/B against main (targets + ragged library), A/B on the one-output-per-CTA shapes.
set -uo pipefail
OUT=${OUT:-/tmp/out}
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/machine.txt
date -u > $OUT/date.txt
bash bench/gpu/check.sh .devbuild-v15 $OUT/check > $OUT/check-stdout.txt 2>&1
tail -12 $OUT/check-stdout.txt
{
for s in "--batch 4 --heads 32 --head-dim 64 --ctx 1024" "--batch 4 --heads 8 --head-dim 64 --ctx 1024" "--batch 1 --heads 64 --kv-heads 8 --head-dim 64 --ctx 1000"; do
  for dt in fp16 bf16; do echo "== validate $s $dt"; .devbuild-v15/leanattn cuda validate $s --dtype $dt --strategy all 2>&1 | tail -4; done
done
} > $OUT/validate-1to1.txt 2>&1
grep -c "FAIL" $OUT/validate-1to1.txt; tail -3 $OUT/validate-1to1.txt
bash bench/gpu/ab.sh .devbuild .devbuild-v15 $OUT/ab --ragged > $OUT/ab-stdout.txt 2>&1
cat $OUT/ab/ab.txt | tail -40
mkdir -p $OUT/ab1
for s in "sweep-d64-g1-1k:--batch 4 --heads 8 --head-dim 64 --ctx 1024" "sweep-d64-g4-1k:--batch 4 --heads 32 --kv-heads 8 --head-dim 64 --ctx 1024" "grid-paper-d64-b1-1k:--batch 1 --heads 32 --head-dim 64 --ctx 1024" "grid-llama3-b16-1k:--batch 16 --heads 32 --kv-heads 8 --head-dim 128 --ctx 1024" "grid-paper-d64-b16-4k:--batch 16 --heads 32 --head-dim 64 --ctx 4096"; do
  name=${s%%:*}; flags=${s#*:}
  for round in 1 2 3; do for side in A B; do dev=.devbuild; [ $side = B ] && dev=.devbuild-v15
    $dev/leanattn cuda bench $flags --strategy all --format json > $OUT/ab1/$side-$name-$round.json 2> $OUT/ab1/$side-$name-$round.err
  done; done
done
python3 - $OUT/ab1 <<'PY' | tee $OUT/ab1/ab.txt
import json, pathlib, statistics, sys, collections
d = pathlib.Path(sys.argv[1]); t = collections.defaultdict(list)
for f in sorted(d.glob("*.json")):
    side, rest = f.stem.split("-", 1); name = rest.rsplit("-", 1)[0]
    try: j = json.loads(f.read_text())
    except Exception as e: print("bad", f, e); continue
    rs = j["results"] if isinstance(j, dict) and "results" in j else j
    for r in rs:
        t[(name, r.get("strategy"), side)].append(r.get("median_us") or r.get("time_us"))
names = sorted({k[0] for k in t}); strats = sorted({k[1] for k in t})
for n in names:
    for s in strats:
        a, b = t.get((n, s, "A")), t.get((n, s, "B"))
        if a and b: print(f"{n:24s} {s:12s} A {statistics.median(a):8.2f} B {statistics.median(b):8.2f} B/A {statistics.median(b)/statistics.median(a):.3f}  A {a} B {b}")
PY
bash bench/gpu/pack_out.sh "$OUT" > /dev/null 2>&1 || true

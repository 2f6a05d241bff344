#!/usr/bin/env bash
set -uo pipefail
OUT=${OUT:-/tmp/out}
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/machine.txt; date -u > $OUT/date.txt
bash bench/gpu/check.sh .devbuild-v15b $OUT/check > $OUT/check-stdout.txt 2>&1 &
cpid=$!
bash bench/gpu/sanitize.sh $OUT/sanitize --bin .devbuild-v15b/leanattn --deadline-s 200 > $OUT/sanitize-stdout.txt 2>&1
for tool in memcheck racecheck synccheck initcheck; do
  compute-sanitizer --tool $tool .devbuild-v15b/leanattn cuda validate --batch 4 --heads 8 --head-dim 64 --ctx 1024 --strategy all > $OUT/sanitize/one-output-per-cta-$tool.log 2>&1; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize/one-output-per-cta-$tool.log)"
done | tee $OUT/sanitize/one-output-per-cta-summary.txt
wait $cpid
tail -8 $OUT/check-stdout.txt; cat $OUT/sanitize/sanitize-summary.txt
mkdir -p $OUT/ab1
for s in "b4-h32kv32-d64-1k:--batch 4 --heads 32 --head-dim 64 --ctx 1024" "sweep-d64-g1-1k:--batch 4 --heads 8 --head-dim 64 --ctx 1024" "sweep-d64-g4-1k:--batch 4 --heads 32 --kv-heads 8 --head-dim 64 --ctx 1024" "grid-paper-d64-b1-1k:--batch 1 --heads 32 --head-dim 64 --ctx 1024" "grid-llama3-b16-1k:--batch 16 --heads 32 --kv-heads 8 --head-dim 128 --ctx 1024" "b16-h8kv1-d128-8k:--batch 16 --heads 8 --kv-heads 1 --head-dim 128 --ctx 8192"; do
  name=${s%%:*}; flags=${s#*:}
  for round in 1 2 3; do for side in A B C; do dev=.devbuild-a; [ $side = B ] && dev=.devbuild-v15; [ $side = C ] && dev=.devbuild-v15b
    $dev/leanattn cuda bench $flags --strategy all --format json > $OUT/ab1/$side-$name-$round.json 2> $OUT/ab1/$side-$name-$round.err
  done; done
done
python3 - $OUT/ab1 <<'PY' | tee $OUT/ab1/abc.txt
import json, pathlib, statistics, sys, collections
d = pathlib.Path(sys.argv[1]); t = collections.defaultdict(list)
for f in sorted(d.glob("*.json")):
    side, rest = f.stem.split("-", 1); name = rest.rsplit("-", 1)[0]
    try: j = json.loads(f.read_text())
    except Exception as e: print("bad", f, e); continue
    for r in j["results"]: t[(name, r["strategy"], side)].append(r["median_us"])
print("A = main (bfb01f1 kernels), B = v15 (one output per CTA walks as no-split), C = v15b (and no flag clearing then); medians of 3 rounds A,B,C")
for n in sorted({k[0] for k in t}):
    for s in ("stream-k", "fixed-split", "no-split"):
        a, b, c = (t.get((n, s, x)) for x in "ABC")
        if a and b and c:
            ma, mb, mc = map(statistics.median, (a, b, c))
            print(f"{n:22s} {s:12s} A {ma:8.2f} B {mb:8.2f} C {mc:8.2f}  B/A {mb/ma:.3f} C/A {mc/ma:.3f} C/B {mc/mb:.3f}")
PY
bash bench/gpu/pack_out.sh "$OUT" > /dev/null 2>&1 || true

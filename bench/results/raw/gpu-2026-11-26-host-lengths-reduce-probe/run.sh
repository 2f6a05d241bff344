#!/usr/bin/env bash
# Why fixed-split's host-lengths steps lose on many-row B=1 shapes: one build three ways (cur: the reduce kernel launched
# with programmatic dependent launch and the decode CTAs allowing it at their start; nopdl: the reduce launched plainly;
# late: the decode CTAs never allow it early, so it launches as they end), against run() (device lengths, cur build).
set -uo pipefail
out=$1; mkdir -p $out/runs .devbuild
for v in cur nopdl late; do xz -dc .devbuild-xz-p3/leanattn-$v.xz > .devbuild/leanattn-$v; chmod +x .devbuild/leanattn-$v; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
which nsys ncu >> $out/machine.txt 2>&1
shapes=("qwen2.5-7b-b1-16k:--model qwen2.5-7b --batch 1 --ctx 16384" "llama-3.1-405b-b1-16k:--model llama-3.1-405b --batch 1 --ctx 16384"
  "falcon-7b-b1-16k:--model falcon-7b --batch 1 --ctx 16384" "llama-3-8b-b1-16k-q4:--model llama-3-8b --batch 1 --ctx 16384 --q-len 4"
  "llama-3-8b-b1-16k:--model llama-3-8b --batch 1 --ctx 16384" "b16-h8kv1-d128-8k:--batch 16 --heads 8 --kv-heads 1 --head-dim 128 --ctx 8192"
  "b1-h32kv8-d128-32k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768")
for s in "${shapes[@]}"; do
  name=${s%%:*}; flags=${s#*:}
  for round in 1 2; do
    .devbuild/leanattn-cur cuda bench $flags --strategy all --format json > $out/runs/$name-live-$round.json 2>/dev/null
    for v in cur nopdl late; do .devbuild/leanattn-$v cuda bench $flags --strategy all --lengths host --format json > $out/runs/$name-$v-$round.json 2>/dev/null; done
  done
done
python3 - $out <<'PY' | tee $out/variants.txt
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1]) / "runs"
names = sorted({p.name.split("-live-")[0] for p in out.glob("*-live-1.json")})
print(f"{'shape':24} {'strategy':12} {'live':>7} {'cur':>7} {'nopdl':>7} {'late':>7}   (us, median of the two rounds' medians)")
for n in names:
    for strategy in ("stream-k", "fixed-split", "no-split"):
        cells = []
        for v in ("live", "cur", "nopdl", "late"):
            ts = []
            for r in (1, 2):
                try:
                    ts += [x["median_us"] for x in json.loads((out / f"{n}-{v}-{r}.json").read_text())["results"] if x["strategy"] == strategy]
                except Exception:
                    pass
            cells.append(f"{statistics.median(ts):7.1f}" if ts else "      -")
        print(f"{n:24} {strategy:12} {' '.join(cells)}")
PY
cd $out && tar czf runs.tgz runs && rm -rf runs
echo "done $SECONDS s"

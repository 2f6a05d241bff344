#!/usr/bin/env bash
# v18's CUDA-core cursor in bf16: A (main) against D (v18), MHA shapes of head dim 64 and 128.
set -uo pipefail
out=$1; mkdir -p $out
for s in A D; do mkdir -p .devbuild-$s; xz -dc .devbuild-ab/leanattn-$s.xz > .devbuild-$s/leanattn; chmod +x .devbuild-$s/leanattn; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for dt in bf16 fp16; do
  for shape in "--batch 4 --heads 8 --head-dim 64 --ctx 2048" "--batch 4 --heads 8 --head-dim 64 --ctx 16384" "--batch 4 --heads 8 --head-dim 128 --ctx 2048" "--batch 4 --heads 8 --head-dim 128 --ctx 16384" "--batch 1 --heads 32 --head-dim 128 --ctx 16384"; do
    for round in 1 2 3; do for side in A D; do
      echo "$dt | $shape | $round | $side | $(.devbuild-$side/leanattn cuda bench $shape --dtype $dt --strategy all --format json | python3 -c 'import json,sys; print(" ".join(f"{r["strategy"]}={r["median_us"]:.2f}" for r in json.load(sys.stdin)["results"]))')"
    done; done
  done
done > $out/simt-ab.txt 2>&1
python3 - $out/simt-ab.txt <<'PY'
import sys, collections, statistics
d = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    parts = [p.strip() for p in line.split("|")]
    if len(parts) != 5: continue
    dt, shape, rnd, side, res = parts
    for kv in res.split():
        k, v = kv.split("="); d[(dt, shape, k)][(rnd, side)] = float(v)
for key, v in d.items():
    ratios = [v[(r, "D")] / v[(r, "A")] for r in "123" if (r, "A") in v and (r, "D") in v]
    print(f"{key[0]} {key[1]:52} {key[2]:12} A {statistics.median([v[(r,'A')] for r in '123' if (r,'A') in v]):8.2f} D/A {statistics.median(ratios):.3f}")
PY

#!/usr/bin/env bash
# Stream-k at output-aligned grids against fixed-split on one-wave shapes (kernel v19).
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz3/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
row() { .devbuild/leanattn cuda bench "$@" --format json | python3 -c 'import json,sys; print(" ".join(f"{r["strategy"]}(grid {r["grid"]}, splits {r["splits"]})={r["median_us"]:.2f}" for r in json.load(sys.stdin)["results"]))'; }
for shape in "--batch 4 --heads 8 --head-dim 64 --ctx 16384" "--batch 4 --heads 8 --head-dim 128 --ctx 8192" "--batch 4 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8192" "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 1024" "--batch 1 --heads 32 --head-dim 64 --ctx 16384" "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768"; do
  for round in 1 2; do
    echo "$shape | $round | all | $(row $shape --strategy all)"
    for g in 32 64 96 128 132; do echo "$shape | $round | grid $g | $(row $shape --strategy stream-k --grid $g)"; done
  done
done > $out/grids.txt 2>&1
cat $out/grids.txt

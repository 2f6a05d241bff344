#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q64/run.sh $OUT", carry=[".devbuild-xz-q64"], kind="nvidia-h100-x1") at 16:56 UTC; .devbuild-xz-q64 held the CLI and libleanattn.so of 96abc20 (kernel v22), shapes.txt and plans.txt (here).
# Falcon-7B B=1 (5 outputs of 16 rows over one KV head): does a smaller LeanTile balance stream-k's few long outputs
# over ~130 CTAs (whole LeanTiles per CTA: 64 of 256 tokens over 26 CTAs each gives 2 or 3) so that one launch beats
# fixed-split's two? cuda bench (host lengths, mirrored blocks) over tiles x grids, then Python's harness beside cuDNN.
# Binaries: v22 (96abc20's build, as q63's base); Python from the working tree (DecodePlan's new `tile`).
set -uo pipefail
out=$1; q=.devbuild-xz-q64; mkdir -p $out .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for s in "--model falcon-7b --batch 1 --ctx 16384 --tile 64" "--model falcon-7b --batch 1 --ctx 16384 --tile 32 --grid 130" "--model falcon-7b --batch 3 --ctx 5000,77,16000 --tile 64 --q-len 4"; do
  .devbuild/leanattn cuda validate $s --strategy stream-k > /dev/null 2>> $out/validate.err || echo "FAILED: $s" >> $out/validate.txt
done
echo "validation: $(cat $out/validate.txt 2>/dev/null | wc -l) failures at $SECONDS s"
timeout 240 .devbuild/leanattn cuda bench --shapes $q/shapes.txt --lengths host --repeat 100 -o $out/bench.jsonl 2> $out/bench.err; echo "bench rc $? at $SECONDS s"
python3 - $out/bench.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "error" in r: print(r["flags"], "ERROR", r["error"]); continue
    for x in r["results"]:
        print(f'{r["flags"]:80} {x["strategy"]:12} grid {x["grid"]:4} splits {x["splits"]:3} {x["median_us"]:7.2f} us')
PY
echo "== probe" > $out/probe.txt
timeout 150 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 >> $out/probe.txt 2>> $out/probe.err; echo "probe rc $? at $SECONDS s"
cat $out/probe.txt; tail -3 $out/probe.err
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

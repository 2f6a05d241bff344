#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q61/run.sh $OUT", carry=[".devbuild-xz-q61"], kind="nvidia-h100-x1") at 15:16 UTC; .devbuild-xz-q61 held the CLI and libleanattn.so of 8c986ef with reduce-smem-switch.patch applied (not committed).
# Fixed-split's reduce launched through PDL with its early trigger kept, but its CTAs given unused dynamic shared
# memory (LEANATTN_REDUCE_SMEM_KB: 0, 100 or 200 KB) so that at most 2 (or 1) share an SM: spread over the SMs the
# split CTAs free rather than crowded onto the idle ones. Python's harness, a decode loop, cuda bench; mirrored order.
set -uo pipefail
out=$1; q=.devbuild-xz-q61; mkdir -p .devbuild $out
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for kb in 100 200; do while read -r line; do
  LEANATTN_REDUCE_SMEM_KB=$kb $L cuda validate $line --strategy fixed-split --lengths host > /dev/null 2>> $out/validate.err || echo "FAILED $kb: $line" >> $out/validate.txt
done < $q/shapes.txt; done
echo "validation: $(cat $out/validate.txt 2>/dev/null | wc -l) failures at $SECONDS s" | tee -a $out/validate.txt
for kb in 0 100 200 200 100 0; do
  echo "== smem $kb KB" >> $out/probe.txt; LEANATTN_REDUCE_SMEM_KB=$kb timeout 80 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 >> $out/probe.txt 2>> $out/probe.err
done; echo "probe at $SECONDS s"
for kb in 0 100 200 200 100 0; do
  echo "== smem $kb KB" >> $out/loop.txt; LEANATTN_REDUCE_SMEM_KB=$kb timeout 80 python3 bench/gpu/decode_loop.py $q/plans.txt --layers 8 >> $out/loop.txt 2>> $out/loop.err
done; echo "loop at $SECONDS s"
for kb in 0 100 200 200 100 0; do
  LEANATTN_REDUCE_SMEM_KB=$kb timeout 60 $L cuda bench --shapes $q/shapes.txt --strategy fixed-split --lengths host --repeat 100 -o $out/bench-$kb-$RANDOM.jsonl 2>> $out/bench.err
done; echo "bench at $SECONDS s"
date -u >> $out/machine.txt
cat $out/probe.txt $out/loop.txt
python3 - $out <<'PY'
import json, glob, sys, statistics as st, collections
t = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/bench-*.jsonl'):
    kb = f.rsplit('/', 1)[1].split('-')[1]
    for l in open(f):
        d = json.loads(l); t[(d['flags'], kb)].append(d['results'][0]['median_us'])
for flags in sorted({k[0] for k in t}):
    print('  '.join(f"{kb} KB {st.mean(t[(flags, kb)]):6.2f}" for kb in ('0', '100', '200')), flags[:70])
PY
bash bench/gpu/pack_out.sh $out

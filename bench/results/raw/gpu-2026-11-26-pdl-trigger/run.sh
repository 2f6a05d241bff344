#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q59/run.sh $OUT", carry=[".devbuild-xz-q59"], kind="nvidia-h100-x1") at 15:07 UTC; .devbuild-xz-q59 held the CLI and libleanattn.so of c3f9590 with trigger-switch.patch applied (not committed).
# Where fixed-split's reduce loses under the suite's flush and spin: the decode kernel triggers its dependents (the
# reduce, launched through PDL) at its CTAs' start (default), at their end (LEANATTN_PDL_TRIGGER=exit: the reduce's
# CTAs placed on the SMs the split CTAs free, not crowded onto the idle ones), or the reduce launched plainly
# (LEANATTN_PDL=0); mirrored order. Python's harness (plan_probe.py, the models table's method), a decode loop of 8
# layers (decode_loop.py), and cuda bench (fixed-split, host lengths); validation in the new mode first.
set -uo pipefail
out=$1; q=.devbuild-xz-q59; mkdir -p .devbuild $out
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
mode() { case $1 in early) echo "env" ;; exit) echo "env LEANATTN_PDL_TRIGGER=exit" ;; plain) echo "env LEANATTN_PDL=0" ;; esac; }
for m in exit early; do while read -r line; do
  $(mode $m) $L cuda validate $line --strategy fixed-split --lengths host > /dev/null 2>> $out/validate.err || echo "FAILED $m: $line" >> $out/validate.txt
  $(mode $m) $L cuda validate $line --strategy fixed-split --dtype bf16 --layout paged > /dev/null 2>> $out/validate.err || echo "FAILED $m bf16 paged: $line" >> $out/validate.txt
done < $q/shapes.txt; done
echo "validation: $(cat $out/validate.txt 2>/dev/null | wc -l) failures at $SECONDS s" | tee -a $out/validate.txt
for m in early exit plain plain exit early; do
  echo "== $m" >> $out/probe.txt; $(mode $m) timeout 80 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 >> $out/probe.txt 2>> $out/probe.err
done; echo "probe at $SECONDS s"
for m in early exit plain plain exit early; do
  echo "== $m" >> $out/loop.txt; $(mode $m) timeout 80 python3 bench/gpu/decode_loop.py $q/plans.txt --layers 8 >> $out/loop.txt 2>> $out/loop.err
done; echo "loop at $SECONDS s"
for m in early exit exit early; do
  $(mode $m) timeout 60 $L cuda bench --shapes $q/shapes.txt --strategy fixed-split --lengths host --repeat 100 -o $out/bench-$m-$RANDOM.jsonl 2>> $out/bench.err
done; echo "bench at $SECONDS s"
date -u >> $out/machine.txt
cat $out/probe.txt $out/loop.txt; tail -3 $out/probe.err $out/loop.err
python3 - $out <<'PY'
import json, glob, sys, statistics as st, collections
t = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/bench-*.jsonl'):
    m = f.rsplit('/', 1)[1].split('-')[1]
    for l in open(f):
        d = json.loads(l); t[(d['flags'], m)].append(d['results'][0]['median_us'])
for flags in sorted({k[0] for k in t}):
    a, b = t[(flags, 'early')], t[(flags, 'exit')]
    print(f"early {st.mean(a):7.2f} exit {st.mean(b):7.2f} ({100*(st.mean(b)/st.mean(a)-1):+.1f}%)  {flags[:80]}")
PY
bash bench/gpu/pack_out.sh $out

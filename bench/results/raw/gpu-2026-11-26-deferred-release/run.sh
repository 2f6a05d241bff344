#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q51/run.sh $OUT", carry=[".devbuild-xz-q51"], kind="nvidia-h100-x1") at 12:54 UTC; .devbuild-xz-q51 held the leanattn CLI and libleanattn.so of 4c6354a built with the LEANATTN_DEFER_RELEASE switch (not committed: the change was reverted after this A/B).
# A/B of the deferred flag release (LEANATTN_DEFER_RELEASE=1: a stream-k peer raises its flag once its next segment's
# first copies fly) against the release before the barrier (0), alternating 0 1 1 0, cuda bench stream-k both ways of
# reading the lengths; validation with it on; Phi-3-medium in Python's harness both ways.
set -o pipefail
out=$1; q=.devbuild-xz-q51; mkdir -p .devbuild $out/r
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so
L=.devbuild/leanattn; r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > $r/machine.txt; date -u >> $r/machine.txt
for v in 1; do while read -r line; do LEANATTN_DEFER_RELEASE=$v $L cuda validate $line --strategy stream-k > /dev/null 2>> $r/validate.err || echo "VALIDATE FAILED: $line" >> $r/validate.txt; LEANATTN_DEFER_RELEASE=$v $L cuda validate $line --strategy stream-k --dtype bf16 --layout paged > /dev/null 2>> $r/validate.err || echo "VALIDATE FAILED bf16 paged: $line" >> $r/validate.txt; done < $q/shapes.txt; done
echo "validation done: $(cat $r/validate.txt 2>/dev/null | wc -l) failures" | tee -a $r/validate.txt
for v in 0 1 1 0; do for lengths in host device; do
  LEANATTN_DEFER_RELEASE=$v $L cuda bench --shapes $q/shapes.txt --strategy stream-k --lengths $lengths --repeat 200 -o $r/sk-$lengths-$v-$RANDOM.jsonl 2>> $r/bench.err; done; done
echo "bench rc $?"
printf 'phi-3-medium 8 4096 1 stream-k\nphi-3-medium 8 4096 1 no-split\n' > /tmp/p.txt
for v in 0 1 1 0; do echo "DEFER=$v" >> $r/probe.txt; LEANATTN_DEFER_RELEASE=$v python3 bench/gpu/plan_probe.py /tmp/p.txt >> $r/probe.txt 2>> $r/probe.err; done
date -u >> $r/machine.txt
cat $r/validate.txt $r/probe.txt
python3 - $r <<'PY'
import json, glob, sys, statistics as st, collections
t = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/sk-*.jsonl'):
    _, lengths, v, _ = f.rsplit('/', 1)[1].split('-')
    for l in open(f):
        d = json.loads(l); t[(d['flags'], lengths, v)].append(d['results'][0]['median_us'])
for key in sorted({(a, b) for a, b, _ in t}):
    a, b = t[key + ('0',)], t[key + ('1',)]
    print(f"{key[1]:6s} off {st.mean(a):7.2f} on {st.mean(b):7.2f} ({100*(st.mean(b)/st.mean(a)-1):+.1f}%)  {key[0][:70]}")
PY
(cd $out && tar czf r.tgz r && rm -rf r)

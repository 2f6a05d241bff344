#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q60/run.sh $OUT", carry=[".devbuild-xz-q60"], kind="nvidia-h100-x1") at 15:15 UTC; .devbuild-xz-q60 held the CLI of 1ebcbd6 (kernel v22).
# Stream-k's LeanTile size and snap on bandwidth-bound B=8-32 shapes: does a finer balance (snap 0: at most one
# LeanTile above the mean per CTA; LeanTiles of 64 tokens) or a coarser one change the GPU's time where the kernel
# model sees no difference? cuda bench --strategy stream-k, host lengths, the lines forward, reversed, reversed, forward.
set -uo pipefail
out=$1; q=.devbuild-xz-q60; mkdir -p .devbuild $out
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for f in shapes shapes-reversed shapes-reversed shapes; do
  timeout 120 .devbuild/leanattn cuda bench --shapes $q/$f.txt --strategy stream-k --lengths host --repeat 100 -o $out/sk-$f-$RANDOM.jsonl 2>> $out/bench.err; echo "$f rc $? at $SECONDS s"
done
date -u >> $out/machine.txt
python3 - $out <<'PY'
import json, glob, sys, statistics as st, collections
t = collections.defaultdict(list); grid = {}
for f in sorted(glob.glob(sys.argv[1] + '/sk-*.jsonl')):
    for l in open(f):
        d = json.loads(l); t[d['flags']].append(d['results'][0]['median_us']); grid[d['flags']] = d['results'][0]['grid']
def shape(flags):
    for var in (' --snap 0', ' --tile 64', ' --tile 256'):
        flags = flags.replace(var, '')
    return flags
base = {f: st.mean(v) for f, v in t.items() if shape(f) == f}
for flags in sorted(t, key=lambda f: (shape(f), f)):
    v = t[flags]
    print(f"{st.mean(v):7.2f} ({min(v):6.2f}-{max(v):6.2f}) x{st.mean(v)/base.get(shape(flags), float('nan')):.3f} grid {grid[flags]:4d}  {flags}")
PY
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q70/run.sh $OUT", carry=[".devbuild-xz-q70"], kind="nvidia-h100-x1") at 17:38 UTC; .devbuild-xz-q70 held the CLI and libleanattn.so of kernel v27 (the shared merge, committed after 2de0d22) and, as base-*, those of kernel v25 (q67), with shapes.txt and plans.txt (here).
# Kernel v27 (host-lengths steps: a stream-k output whose contributors have no other segment is merged by all of them,
# each a share of its rows, instead of by its host alone) against v25 (base: q67's build). Validation as host-lengths
# steps first (check.sh --lengths host: every path, every model, the Python GPU tests), then cuda bench of Falcon-7B's
# one-launch plans and others with both builds (host lengths, mirrored), ab.sh over targets and models, plan_probe
# beside cuDNN with v27, and sanitize.sh --quick as host-lengths steps.
set -uo pipefail
out=$1; q=.devbuild-xz-q70; mkdir -p $out .devbuild .devbuild-base
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; xz -dc $q/base-$f.xz > .devbuild-base/$f; done
chmod +x .devbuild/leanattn .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for s in "--model falcon-7b --batch 1 --ctx 16384 --tile 64 --grid 80" "--model falcon-7b --batch 1 --ctx 16384 --grid 130" "--model falcon-7b --batch 3 --ctx 5000,77,16000 --q-len 4 --grid 130 --dtype bf16" "--model llama-3.1-405b --batch 2 --ctx 16384,9000 --layout paged --block-size 16" "--model qwen2.5-7b --batch 1 --ctx 16384 --q-len 4"; do
  for l in host device; do .devbuild/leanattn cuda validate $s --strategy stream-k --lengths $l > /dev/null 2>> $out/validate.err || echo "FAILED $l: $s" >> $out/validate.txt; done
done
echo "shared-merge validation: $(cat $out/validate.txt 2>/dev/null | wc -l) failures at $SECONDS s"; cat $out/validate.txt 2>/dev/null
for side in base new base new; do
  d=.devbuild; [ $side = base ] && d=.devbuild-base
  timeout 60 $d/leanattn cuda bench --shapes $q/shapes.txt --lengths host --repeat 100 -o $out/bench-$side-$SECONDS.jsonl 2>> $out/bench.err
done
python3 - $out <<'PY'
import json, sys, glob, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/bench-*.jsonl")):
    side = f.split("bench-")[1].split("-")[0]
    for line in open(f):
        r = json.loads(line)
        if "error" in r: print(r["flags"], r["error"]); continue
        for x in r["results"]: t[(r["flags"], side)].append(x["median_us"])
for flags in dict.fromkeys(k[0] for k in t):
    b, n = t[(flags, "base")], t[(flags, "new")]
    print(f"{flags:80} v25 {' '.join(f'{v:6.2f}' for v in b)}  v27 {' '.join(f'{v:6.2f}' for v in n)}  ratio {sum(n)/sum(b):.3f}")
PY
echo "bench at $SECONDS s"
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so timeout 80 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 > $out/probe.txt 2> $out/probe.err; echo "probe rc $? at $SECONDS s"; cat $out/probe.txt
timeout 100 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --models -- --lengths host --repeat 50 > $out/ab.log 2>&1; echo "ab rc $? at $SECONDS s"
cat $out/ab/ab.txt
timeout 200 bash bench/gpu/check.sh .devbuild $out/check --lengths host > /dev/null 2>&1; echo "check rc $? at $SECONDS s"
cat $out/check/summary.txt; grep -B1 FAILED $out/check/*.log | head -20
timeout 90 bash bench/gpu/sanitize.sh $out/sanitize --quick --bin .devbuild/leanattn --deadline-s 75 --flags "--lengths host" > /dev/null 2>&1; echo "sanitize rc $? at $SECONDS s"
cat $out/sanitize/sanitize-summary.txt
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q186/run.sh $OUT", carry=[".devbuild-xz-q186"], kind="nvidia-h100-x1")
# 2026-11-28 (third session of the day): the session's kernel changes together (empty requests cleared by the table
# kernels, l != 0 in the store, max.NaN for every running maximum, one-row tiles of q_len > 1 on the two-row
# tensor-core kernel) against the session's start (8eb9e85): ab.sh, steps of run() and host-lengths steps, target and
# model shapes, A B A B.
set -uo pipefail
out=$1; q=.devbuild-xz-q186; r=$out/r; mkdir -p $r .devbuild-old .devbuild-new
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/leanattn-old.xz > .devbuild-old/leanattn; xz -dc $q/leanattn-new.xz > .devbuild-new/leanattn
chmod +x .devbuild-old/leanattn .devbuild-new/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
timeout 250 bash bench/gpu/ab.sh .devbuild-old .devbuild-new $r/ab-device --models > /dev/null 2>&1; echo "ab device rc $? at $SECONDS s"
timeout 250 bash bench/gpu/ab.sh .devbuild-old:--lengths\ host .devbuild-new:--lengths\ host $r/ab-host --models > /dev/null 2>&1; echo "ab host rc $? at $SECONDS s"
python3 - $r <<'PY'
import statistics, sys
for mode in ("device", "host"):
    lines = open(f"{sys.argv[1]}/ab-{mode}/ab.txt").read().split("\n")[1:]
    for strat in ("stream-k", "fixed-split", "no-split"):
        v = [float(l.split()[-1]) for l in lines if len(l.split()) > 2 and l.split()[1] == strat and l.split()[-1] != "-"]
        if v: print(mode, strat, len(v), "median %.3f min %.3f max %.3f" % (statistics.median(v), min(v), max(v)))
PY
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

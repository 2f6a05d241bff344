#!/usr/bin/env bash
# Why models.py and cuda bench disagree on fixed-split: one plan timed every way in one process
# (bench/gpu/capture_probe.py), and the captured host-lengths graphs dumped as DOT.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-q19/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
timeout 240 python3 bench/gpu/capture_probe.py --bin .devbuild/leanattn --dump $out/dot > $out/probe.txt 2> $out/probe.err; echo "probe rc $?"
cat $out/probe.txt; tail -3 $out/probe.err
ls $out/dot; for f in $out/dot/*fixed-split-16*; do echo "== $f"; grep -iE -- "->|programmatic|port" "$f" | head -8; done
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# The models table's 160 shapes timed by `cuda bench` under every strategy, both ways of reading the lengths (kernel v22):
# training data for the kernel model where users decode.
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
xz -dc .devbuild-xz-q6/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
r=$out/r
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
.devbuild/leanattn cuda bench --shapes .devbuild-xz-q6/models-shapes.txt --strategy all --repeat 50 -o $r/models-device.jsonl 2> $r/models-device.log; echo "device rc $?"
.devbuild/leanattn cuda bench --shapes .devbuild-xz-q6/models-shapes.txt --strategy all --repeat 50 --lengths host -o $r/models-host.jsonl 2> $r/models-host.log; echo "host rc $?"
(cd $out && tar czf r.tgz r && rm -rf r)
echo "done $SECONDS s"

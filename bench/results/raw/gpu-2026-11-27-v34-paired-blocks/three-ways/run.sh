#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q117/run.sh $OUT", carry=[".devbuild-xz-q117"], kind="nvidia-h100-x1"), after q113/run.sh and q117/run-first.sh on the same warm machine
# Paired blocks, three ways on one GPU: A = HEAD c3856db, B = pairs always (q114), C = pairs only for warps of 4 blocks or
# more (this folder's CLI). ab.sh (A B A B) of A against B and A against C, auto as host-lengths steps and as steps of run().
set -uo pipefail
out=$1; q=.devbuild-xz-q117; r=$out/r; mkdir -p $r .devbuild-c
[ -x .devbuild-a/leanattn ] && [ -x .devbuild-b/leanattn ] || { echo "no .devbuild-a or -b: the earlier calls did not run on this machine"; exit 3; }
xz -dc $q/leanattn.xz > .devbuild-c/leanattn; chmod +x .devbuild-c/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for l in host device; do
  for v in b c; do
    bash bench/gpu/ab.sh .devbuild-a .devbuild-$v $r/$l-a-$v --shapes $q/shapes.txt --strategy auto -- --lengths $l > /dev/null 2>&1; echo "== $l: A against ${v^^} rc $? at $SECONDS s"
    grep -v "plans:" $r/$l-a-$v/ab.txt
  done
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

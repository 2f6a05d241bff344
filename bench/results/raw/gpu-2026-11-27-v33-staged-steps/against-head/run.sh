#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q109/run.sh $OUT", carry=[".devbuild-xz-q109"], kind="nvidia-h100-x1"), right after .devbuild-xz-q109a/run.sh on the same warm machine
# Staged steps, second call: did the branch's other kernels keep their speed? ab.sh (A B A B, auto) of HEAD 3153e88's CLI
# against the branch's, as host-lengths steps and as steps of run() (DecodeParams gained a pointer; the kernel sets grew).
set -uo pipefail
out=$1; q=.devbuild-xz-q109; r=$out/r; mkdir -p $r .devbuild-a .devbuild-b
[ -x .devbuild-a/leanattn ] || { echo "no .devbuild-a/leanattn: the first call did not run on this machine"; exit 3; }
xz -dc $q/leanattn.xz > .devbuild-b/leanattn; chmod +x .devbuild-b/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
bash bench/gpu/ab.sh .devbuild-a .devbuild-b $r/host --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "ab host rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-a .devbuild-b $r/device --shapes $q/shapes.txt --strategy auto -- --lengths device > /dev/null 2>&1; echo "ab device rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-a .devbuild-b $r/all-host --shapes $q/shapes.txt -- --lengths host > /dev/null 2>&1; echo "ab all rc $? at $SECONDS s"
for t in host device all-host; do echo "== $t"; grep -v "plans:" $r/$t/ab.txt; done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q121/run.sh $OUT", carry=[".devbuild-xz-q121"], kind="nvidia-h100-x1"), after q113/run.sh (A) and q117/run-first.sh (B) on the same warm machine
# v34's device-lengths kernels at head dim 64 held to 152 registers (v33's count; __maxnreg__) = C: does the early
# residency's gain come back? A (v33), B (v34), C, auto as steps of run() and as host-lengths steps; validations of C.
set -uo pipefail
out=$1; q=.devbuild-xz-q121; r=$out/r; mkdir -p $r .devbuild-c
[ -x .devbuild-a/leanattn ] && [ -x .devbuild-b/leanattn ] || { echo "no .devbuild-a or -b: the earlier calls did not run on this machine"; exit 3; }
xz -dc $q/leanattn.xz > .devbuild-c/leanattn; chmod +x .devbuild-c/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for v in b c; do
  bash bench/gpu/ab.sh .devbuild-a .devbuild-$v $r/device-a-$v --shapes $q/shapes.txt --strategy auto -- --lengths device > /dev/null 2>&1; echo "== device A against ${v^^} rc $? at $SECONDS s"
  grep -v "plans:" $r/device-a-$v/ab.txt
done
bash bench/gpu/ab.sh .devbuild-b .devbuild-c $r/host-b-c --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "== host B against C rc $? at $SECONDS s"
grep -v "plans:" $r/host-b-c/ab.txt
{
  for d in fp16 bf16; do for g in 1 2 4 8 16; do for ql in 1 3; do
    f="--batch 3 --kv-heads 2 --heads $((2 * g)) --head-dim 64 --q-len $ql --ctx 33,1000,4111 --dtype $d --strategy all"
    echo "== $f"; .devbuild-c/leanattn cuda validate $f || echo "   ^ FAILED"
  done; done; done
} > $r/validate-c.txt 2>&1
echo "validate C (device lengths, head dim 64): $(grep -c FAILED $r/validate-c.txt) failed of $(grep -c '^==' $r/validate-c.txt) at $SECONDS s"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q63/run.sh $OUT", carry=[".devbuild-xz-q63"], kind="nvidia-h100-x1") at 16:12 UTC; .devbuild-xz-q63 held the CLI and libleanattn.so of 0b990e2 with l2-prefetch.patch applied (not committed), and 96abc20-equivalent base builds (kernel v22).
# cp.async with an L2 prefetch of 256 bytes (`.L2::256B`) against v22 (base: 96abc20's build): does a larger DRAM
# request per copy raise the streaming rate on bandwidth-bound shapes? ab.sh (host lengths, A B A B, targets and
# models), then Python's harness on three plans with each library (A B B A), validation of the new build on a few shapes.
set -uo pipefail
out=$1; q=.devbuild-xz-q63; mkdir -p $out .devbuild .devbuild-base
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
xz -dc $q/base-leanattn.xz > .devbuild-base/leanattn; chmod +x .devbuild-base/leanattn
xz -dc $q/base-libleanattn.so.xz > .devbuild-base/libleanattn.so
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for s in "--model phi-3-medium --batch 8 --ctx 4096" "--model falcon-7b --batch 1 --ctx 16384" "--batch 3 --heads 32 --kv-heads 8 --head-dim 96 --ctx 5000,77,1300 --q-len 4" "--batch 2 --heads 8 --head-dim 256 --ctx 3000,9" "--batch 2 --heads 16 --kv-heads 8 --head-dim 128 --ctx 3000,700 --layout paged --block-size 16"; do
  for st in stream-k fixed-split no-split; do .devbuild/leanattn cuda validate $s --strategy $st > /dev/null 2>> $out/validate.err || echo "FAILED $st: $s" >> $out/validate.txt; done
done
echo "validation: $(cat $out/validate.txt 2>/dev/null | wc -l) failures at $SECONDS s"
timeout 200 bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --models -- --lengths host --repeat 100 > $out/ab.log 2>&1; echo "ab rc $? at $SECONDS s"
cat $out/ab/ab.txt
for lib in base new new base; do
  d=.devbuild; [ $lib = base ] && d=.devbuild-base
  echo "== $lib" >> $out/probe.txt; LEANATTN_LIBRARY=$PWD/$d/libleanattn.so timeout 80 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16 >> $out/probe.txt 2>> $out/probe.err
done; echo "probe at $SECONDS s"
cat $out/probe.txt
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

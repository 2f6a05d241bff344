#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q83/run.sh $OUT", carry=[".devbuild-xz-q83"], kind="nvidia-h100-x1"), 2026-11-26 19:57 UTC, 46.5 s on the machine; the trial build (one-warp teams at head dim 64: two blocks a turn, unrolled) was reverted
# v30 trial: a one-warp team at head dim 64 takes two blocks a turn, computed unrolled, against v29 (q78's build):
# validation of the head-dim-64 tensor-core paths, A B A B on head-dim-64 GQA/MQA shapes (host lengths), Falcon-7B B=1
# 16k at 16 CTAs per output A B A B, then plan_probe (the new build) beside cuDNN.
set -uo pipefail
out=$1; q=.devbuild-xz-q83; mkdir -p .devbuild .devbuild-base $out/ab
xz -dc $q/leanattn-base.xz > .devbuild-base/leanattn
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn .devbuild-base/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
{ for L in device host; do for lay in padded paged ragged; do for gq in 2:1 4:4 8:1 16:2 71:1 71:4 1:4; do g=${gq%%:*}; ql=${gq#*:}
  echo "== d 64 group $g q_len $ql layout $lay lengths $L"
  timeout 60 .devbuild/leanattn cuda validate --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $ql --head-dim 64 --ctx $ql,700,2600 --layout $lay --lengths $L || echo "   ^ FAILED"
done; done; done; } > $out/validate.log 2>&1
echo "validate: $(grep -c FAILED $out/validate.log) failed of $(grep -c '^==' $out/validate.log) at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-base .devbuild $out/ab --shapes $q/d64-shapes.txt -- --lengths host --repeat 50 > /dev/null 2>&1; echo "ab rc $? at $SECONDS s"; cat $out/ab/ab.txt
for r in 1 2; do for b in base new; do dev=.devbuild; [ $b = base ] && dev=.devbuild-base
  echo "falcon b1 16k grid 80 $b $r: $($dev/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --lengths host --strategy stream-k --grid 80 --repeat 50 2>&1 | grep '^stream-k')"
done; done | tee $out/falcon-g80.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python timeout 120 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16,bf16 > $out/plan_probe.txt 2>&1; echo "plan_probe rc $? at $SECONDS s"; grep leanattn $out/plan_probe.txt
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

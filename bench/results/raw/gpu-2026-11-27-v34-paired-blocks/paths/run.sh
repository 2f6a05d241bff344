#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q118/run-first.sh $OUT", carry=[".devbuild-xz-q114/leanattn.xz", ".devbuild-xz-q118/run-first.sh"], kind="nvidia-h100-x1")
# Kernel v34 (paired blocks; q114's CLI is v34's build), first call of two: every head-dim-64 tensor-core path validated
# against float64 as steps of run(), host-lengths steps and staged steps (groups 1-16, q_len 1 and 3, fp16 and bf16, a
# ragged batch of 33-4,111 tokens, every strategy), and Falcon-7B on a paged batch and at q_len 4.
set -uo pipefail
out=$1; r=$out/r; mkdir -p $r .devbuild
xz -dc .devbuild-xz-q114/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
{
  for d in fp16 bf16; do for l in device host staged; do for g in 1 2 4 8 16; do for ql in 1 3; do
    f="--batch 3 --kv-heads 2 --heads $((2 * g)) --head-dim 64 --q-len $ql --ctx 33,1000,4111 --dtype $d --lengths $l --strategy all"
    echo "== $f"; .devbuild/leanattn cuda validate $f || echo "   ^ FAILED"
  done; done; done; done
  for l in device host staged; do for m in "--model falcon-7b --batch 4 --ctx 9000,300,4100,16000 --layout paged" "--model falcon-7b --batch 1 --ctx 16384 --q-len 4"; do
    echo "== $m --lengths $l"; .devbuild/leanattn cuda validate $m --lengths $l --strategy all || echo "   ^ FAILED"
  done; done
} > $r/validate-d64.txt 2>&1
echo "validate d64: $(grep -c FAILED $r/validate-d64.txt) failed of $(grep -c '^==' $r/validate-d64.txt) at $SECONDS s"
compute-sanitizer --tool memcheck .devbuild/leanattn cuda validate --model falcon-7b --batch 2 --ctx 3001,77 --strategy all --lengths staged > $r/sanitize-memcheck-staged.txt 2>&1; echo "memcheck staged rc $? $(grep 'ERROR SUMMARY' $r/sanitize-memcheck-staged.txt | tail -1)"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Kernel v21 (the tensor-core turn's instructions: copies by a per-lane pattern, ldmatrix addresses split,
# no mask on whole blocks, exp2 on the SFU): tests, validations over every path, A/B timing against v20, ncu.
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
for f in leanattn leanattn-base test_cuda; do xz -dc .devbuild-xz-q3/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
r=$out/r
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
timeout 200 .devbuild/test_cuda > $r/test_cuda.log 2>&1; echo "test_cuda rc $?: $(tail -2 $r/test_cuda.log | head -1)"
{ for L in device host; do for lay in padded paged ragged; do for d in 64 96 128 256; do for gq in 1:1 4:1 7:1 16:2 71:4 8:8; do g=${gq%%:*}; q=${gq#*:}
  echo "== d $d group $g q_len $q layout $lay lengths $L"; .devbuild/leanattn cuda validate --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $q --head-dim $d --ctx $q,700,2600 --layout $lay --lengths $L || echo "   ^ FAILED"
done; done; done; done; } > $r/validate.log 2>&1
echo "validate: $(grep -c FAILED $r/validate.log) failed of $(grep -c '^==' $r/validate.log)"
for rep in 1 2; do for b in leanattn-base leanattn; do
  .devbuild/$b cuda bench --shapes .devbuild-xz-q3/shapes.txt --lengths host --repeat 50 -o $r/ab-$b-$rep.jsonl 2> $r/ab-$b-$rep.err; echo "$b $rep rc $?"
done; done
ncu --graph-profiling node --kernel-name regex:'decode' --launch-count 1 --section WarpStateStats --section SchedulerStats --section InstructionStats --section SpeedOfLight \
  .devbuild/leanattn cuda bench --model qwen2.5-7b --ctx 16384 --strategy no-split --lengths host --repeat 1 > $r/ncu-qwen-nosplit.txt 2>&1
cuobjdump --dump-resource-usage .devbuild/leanattn 2>/dev/null | grep -A1 "decode_mma_table" | grep -o "Function [^ ]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - > $r/resources.txt
(cd $out && tar czf r.tgz r && rm -rf r)
echo "done $SECONDS s"

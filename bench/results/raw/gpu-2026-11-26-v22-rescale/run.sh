#!/usr/bin/env bash
# Kernel v22 (O rescaled only in turns where a row's max moved) against v21: tests, 144 validations, A/B; then the
# calibration sweeps on v22 (run() with traces, host-lengths steps, the row-block sweep) and a full Nsight Compute
# profile of one tensor-core turn.
set -uo pipefail
out=$1; mkdir -p $out/r .devbuild
for f in leanattn leanattn-base test_cuda; do xz -dc .devbuild-xz-q4/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
r=$out/r
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
timeout 200 .devbuild/test_cuda > $r/test_cuda.log 2>&1; echo "test_cuda rc $?: $(tail -2 $r/test_cuda.log | head -1)"
{ for L in device host; do for lay in padded paged ragged; do for d in 64 96 128 256; do for gq in 1:1 4:1 7:1 16:2 71:4 8:8; do g=${gq%%:*}; q=${gq#*:}
  echo "== d $d group $g q_len $q layout $lay lengths $L"; .devbuild/leanattn cuda validate --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $q --head-dim $d --ctx $q,700,2600 --layout $lay --lengths $L || echo "   ^ FAILED"
done; done; done; done; } > $r/validate.log 2>&1
echo "validate: $(grep -c FAILED $r/validate.log) failed of $(grep -c '^==' $r/validate.log)"
for rep in 1 2; do for b in leanattn-base leanattn; do
  .devbuild/$b cuda bench --shapes .devbuild-xz-q4/shapes.txt --lengths host --repeat 50 -o $r/ab-$b-$rep.jsonl 2> $r/ab-$b-$rep.err; echo "$b $rep rc $?"
done; done
bash bench/gpu/calibration.sh .devbuild $r/cal-device > /dev/null 2>&1; echo "cal-device rc $?"
CALIBRATION_FLAGS="--lengths host" bash bench/gpu/calibration.sh .devbuild $r/cal-host > /dev/null 2>&1; echo "cal-host rc $?"
.devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all -o $r/cal-device/row-blocks.jsonl 2> $r/cal-device/row-blocks.log
.devbuild/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all --lengths host -o $r/cal-host/row-blocks.jsonl 2> $r/cal-host/row-blocks.log
ncu --graph-profiling node --kernel-name regex:'decode' --launch-count 1 --set full --import-source yes -o $r/qwen-nosplit -f \
  .devbuild/leanattn cuda bench --model qwen2.5-7b --ctx 16384 --strategy no-split --lengths host --repeat 1 > /dev/null 2>&1
ncu -i $r/qwen-nosplit.ncu-rep --page details > $r/ncu-qwen-nosplit.txt 2>&1
ncu -i $r/qwen-nosplit.ncu-rep --page source --csv --print-source sass > $r/qwen-nosplit.sass.csv 2>&1
rm -f $r/qwen-nosplit.ncu-rep
(cd $out && tar czf r.tgz r && rm -rf r)
echo "done $SECONDS s"

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q78/run.sh $OUT", carry=[".devbuild-xz-q78"], kind="nvidia-h100-x1"), 2026-11-26 19:18 UTC, GPU-1659a3b5, 139 s on the machine; data/kernels/leanattn-h100-host.json was the trial fit (trial-fit.json here, its fit in trial-fit.txt)
# Kernel v29 and the host-lengths model with shared merges (data/kernels/leanattn-h100-host.json refitted on v27's
# sweep, merge: shared): test_cuda; the plans auto now takes for Falcon-7B and Llama-3.1-405B beside the ones it took,
# in Python's timing beside cuDNN (plan_probe.py) and in cuda bench's; then every model (models.py, fp16 and bf16).
set -uo pipefail
out=$1; q=.devbuild-xz-q78; mkdir -p .devbuild $out
for f in leanattn libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn .devbuild/test_cuda
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
timeout 150 .devbuild/test_cuda > $out/test_cuda.log 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -2 $out/test_cuda.log
timeout 150 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16,bf16 > $out/plan_probe.txt 2>&1; echo "plan_probe rc $? at $SECONDS s"; grep -v "^ *$" $out/plan_probe.txt | tail -22
{ for rep in 1 2; do
  for o in "--strategy stream-k --grid 130" "--strategy stream-k --grid 80" "--strategy fixed-split --splits 26" "--strategy auto"; do echo "falcon b1 16k $o: $(.devbuild/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --lengths host --repeat 50 $o 2>&1 | grep -E '^(stream-k|fixed-split|no-split) ' | head -1)"; done
  for o in "--strategy stream-k" "--strategy stream-k --tile-rows 8" "--strategy auto"; do echo "405b b1 16k $o: $(.devbuild/leanattn cuda bench --model llama-3.1-405b --batch 1 --ctx 16384 --lengths host --repeat 50 $o 2>&1 | grep -E '^(stream-k|fixed-split|no-split) ' | head -1)"; done
done; } > $out/cuda-bench.txt 2>&1; cat $out/cuda-bench.txt
timeout 300 python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $out/models.log
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

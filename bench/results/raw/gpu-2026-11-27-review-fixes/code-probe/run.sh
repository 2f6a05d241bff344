#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q169/run.sh $OUT", carry=[".devbuild-xz-q169"], kind="nvidia-h100-x1")
# device_available also asks whether this build holds code the GPU runs (cudaFuncGetAttributes on a probe kernel):
# on an H100 it must still say yes, and everything that asks it still runs (test_cuda, the CLI's cuda commands).
set -uo pipefail
out=$1; q=.devbuild-xz-q169; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
xz -dc $q/test_cuda.xz > /tmp/test_cuda && xz -dc $q/leanattn.xz > /tmp/leanattn && chmod +x /tmp/test_cuda /tmp/leanattn
timeout 300 /tmp/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $?"; tail -2 $r/test_cuda.txt
export LEANATTN_DATA=$PWD/data
timeout 120 /tmp/leanattn cuda validate --model llama-3-8b --batch 4 --ctx 3000,77,1500,9000 --layout paged > $r/validate.txt 2>&1; echo "validate rc $?"; tail -4 $r/validate.txt
timeout 120 /tmp/leanattn cuda bench --model llama-3-8b --batch 8 --ctx 4096 --strategy auto > $r/bench.txt 2>&1; echo "bench rc $?"; tail -3 $r/bench.txt
bash bench/gpu/pack_out.sh $out

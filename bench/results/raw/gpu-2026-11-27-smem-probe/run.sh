#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q104/run.sh $OUT", carry=[".devbuild-xz-q104"], kind="nvidia-h100-x1")
# smem_probe.cu: does a kernel's dynamic shared memory cost its launch after the suite's flush (kernels with none)?
set -uo pipefail
out=$1; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
nvcc -O3 -std=c++17 -arch=sm_90a bench/gpu/smem_probe.cu -o /tmp/smem_probe 2> $r/nvcc.txt; echo "nvcc rc $?"
/tmp/smem_probe 300 | tee $r/smem_probe.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

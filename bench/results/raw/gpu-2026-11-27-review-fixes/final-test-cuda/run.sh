#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q168/run.sh $OUT", carry=[".devbuild-xz-q168"], kind="nvidia-h100-x1")
# test_cuda at the same commit as .devbuild-xz-q167's check (the two did not fit one call).
set -uo pipefail
out=$1; q=.devbuild-xz-q168; r=$out/r; mkdir -p $r
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
xz -dc $q/test_cuda.xz > /tmp/test_cuda && chmod +x /tmp/test_cuda
timeout 300 /tmp/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $?"; tail -2 $r/test_cuda.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q112/run.sh $OUT", carry=[".devbuild-xz-q112"], kind="nvidia-h100-x1")
# After the review's refactor (the C ABI's steps through one helper; the host-lengths and staged steps' host cache view
# through one function): the Python package's tests on the GPU machine, which run every C ABI step kind on CUDA tensors.
set -uo pipefail
out=$1; q=.devbuild-xz-q112; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 300 python3 -m pytest -q python/tests > $r/pytest.txt 2>&1; echo "pytest rc $?: $(tail -1 $r/pytest.txt)"; grep FAILED $r/pytest.txt | head
bash bench/gpu/pack_out.sh $out

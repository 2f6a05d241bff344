#!/usr/bin/env bash
# The Python package's GPU tests (with the new host-lengths test) on the build of 499ede5 (no C++ change since).
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-p9/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py > $out/pytest.log 2>&1; echo "pytest rc $?"
tail -3 $out/pytest.log

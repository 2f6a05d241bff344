#!/usr/bin/env bash
# The Python package's GPU tests on the build of 4d5dc91 (kernel v22, auto's new rule).
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-q13/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/pytest.log 2>&1; echo "pytest rc $?"
tail -3 $out/pytest.log

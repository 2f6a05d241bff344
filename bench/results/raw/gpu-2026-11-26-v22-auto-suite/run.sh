#!/usr/bin/env bash
# The suite, every model and the Python package's GPU tests on the build of a7f6f64 (kernel v22; auto weighs host-lengths
# steps with the host-lengths model and fixed-split at one wave's split count), one call.
set -o pipefail
out=$1; mkdir -p .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-q14/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || echo "no FlashInfer wheels: the suite runs without it"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
python3 bench/gpu/suite.py --out $out/suite --budget-s 400 > $out/call.log 2>&1; echo "suite rc $?"
grep "target:" $out/call.log | cut -c1-200
export PYTHONPATH=$PWD/python:$PYTHONPATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log
mkdir -p $out/python-gpu; date -u > $out/python-gpu/machine.txt
timeout 90 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/python-gpu/pytest.log 2>&1; echo "pytest rc $?"
tail -2 $out/python-gpu/pytest.log
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q84/run.sh $OUT", carry=[".devbuild-xz-q84", ".whl"], kind="nvidia-h100-x1"), 2026-11-26 20:21 UTC (the suite from 20:22), GPU-c3b63218, 407 s on the machine (the build of 76b4379: kernel v29, auto with the shared-merge host-lengths model)
# The suite and the Python package's GPU tests on the build of HEAD (kernel v29; auto with the shared-merge
# host-lengths model, weighing 16 and 8 CTAs per output first), one call.
set -o pipefail
out=$1; q=.devbuild-xz-q84; mkdir -p .devbuild
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || echo "no FlashInfer wheels: the suite runs without it"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
python3 bench/gpu/suite.py --out $out/suite --budget-s 400 > $out/call.log 2>&1; echo "suite rc $? at $SECONDS s"
grep "target:" $out/call.log | cut -c1-200
export PYTHONPATH=$PWD/python:$PYTHONPATH
mkdir -p $out/python-gpu; date -u > $out/python-gpu/machine.txt
timeout 120 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/python-gpu/pytest.log 2>&1; echo "pytest rc $? at $SECONDS s"
tail -2 $out/python-gpu/pytest.log
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q62/run.sh $OUT", carry=[".devbuild-xz-q62"], kind="nvidia-h100-x1") at 15:50 UTC; .devbuild-xz-q62 held libleanattn.so of 96abc20.
# Every model (models.py, fp16 and bf16, mirrored blocks) and the Python package's GPU tests on the build of 96abc20 (auto with the plan-free bound; kernel v22 unchanged).

set -o pipefail
out=$1; q=.devbuild-xz-q62; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
mkdir -p $out/python-gpu; date -u > $out/python-gpu/machine.txt
timeout 150 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/python-gpu/pytest.log 2>&1; echo "pytest rc $?"
tail -2 $out/python-gpu/pytest.log
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

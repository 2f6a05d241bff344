#!/usr/bin/env bash
# Every model and the Python package's GPU tests with auto under the kernel models fitted on two H100s, and 8-row tiles for KV heads of 9-16 rows weighed (HEAD).
set -o pipefail
out=$1; mkdir -p .devbuild
for f in libleanattn.so; do xz -dc .devbuild-xz-q39/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log
mkdir -p $out/python-gpu; date -u > $out/python-gpu/machine.txt
timeout 120 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/python-gpu/pytest.log 2>&1; echo "pytest rc $?"
tail -2 $out/python-gpu/pytest.log
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

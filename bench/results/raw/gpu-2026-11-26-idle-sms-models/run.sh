#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q46/run.sh $OUT", carry=[".devbuild-xz-q46"], kind="nvidia-h100-x1") at 12:19 UTC (wall 217 s); .devbuild-xz-q46 held the stripped libleanattn.so of eb51c1a, the one of 10:55 UTC (7e7a97b-era build, .devbuild-xz-q39) and data/ with the kernel models of before (6e59b28).
# Every model (models.py, fp16 and bf16) with auto under the kernel models refitted with the idle SMs' bandwidth term
# (and 8-row tiles taken unless predicted 5% slower), then the build of 10:55 UTC with its models, fp16, on the same
# machine as the baseline; then the Python package's GPU tests.
set -o pipefail
out=$1; q=.devbuild-xz-q46; mkdir -p .devbuild
for f in libleanattn.so libleanattn-old.so; do xz -dc $q/$f.xz > .devbuild/$f; done
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn-old.so LEANATTN_DATA=$PWD/$q/data-old python3 bench/gpu/models.py --out $out/models-old > $out/models-old.log 2>&1; echo "models-old rc $?"
tail -3 $out/models-old.log; date -u >> $out/models-machine.txt
mkdir -p $out/python-gpu; date -u > $out/python-gpu/machine.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so timeout 100 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/python-gpu/pytest.log 2>&1; echo "pytest rc $?"
tail -2 $out/python-gpu/pytest.log
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

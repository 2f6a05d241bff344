#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q71/run.sh $OUT", carry=[".devbuild-xz-q71"], kind="nvidia-h100-x1") at 17:44 UTC; .devbuild-xz-q71 held the CLI, libleanattn.so and test_cuda of kernel v27 (the build of q70).
# Kernel v27 (the build of q70): test_cuda (the C++ API on the GPU: every strategy's host-lengths step against run()'s
# bits, flags left 0), the Python package's GPU tests (a shared merge's bits among them), then every model (models.py,
# fp16 and bf16, mirrored blocks).
set -o pipefail
out=$1; q=.devbuild-xz-q71; mkdir -p .devbuild
for f in leanattn libleanattn.so test_cuda; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn .devbuild/test_cuda
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
timeout 150 .devbuild/test_cuda > $out/test_cuda.log 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $out/test_cuda.log
timeout 150 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/pytest.log 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $out/pytest.log
timeout 280 python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $? at $SECONDS s"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q52/run.sh $OUT", carry=[".devbuild-xz-q52"], kind="nvidia-h100-x1") at 13:09 UTC (wall 87 s); .devbuild-xz-q52 held the stripped libleanattn.so of a8b2963.
# auto takes no-split where stream-k's plan is one whole output per CTA: models.py on the models whose host-lengths
# choice changed (Llama-3.1-405B, Llama-3-70B, CodeLlama-34B, Gemma-2-27B, Qwen2.5-32B), fp16 and bf16; then the
# Python package's GPU tests.
set -o pipefail
out=$1; q=.devbuild-xz-q52; mkdir -p .devbuild
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
python3 bench/gpu/models.py --bf16 --models llama-3.1-405b,llama-3-70b,codellama-34b,gemma-2-27b,qwen2.5-32b --out $out/models > $out/models.log 2>&1; echo "models rc $?"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
mkdir -p $out/python-gpu; date -u > $out/python-gpu/machine.txt
timeout 150 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py python/tests/test_auto_strategy.py > $out/python-gpu/pytest.log 2>&1; echo "pytest rc $?"
tail -2 $out/python-gpu/pytest.log
echo "done in $SECONDS s"
bash bench/gpu/pack_out.sh $out

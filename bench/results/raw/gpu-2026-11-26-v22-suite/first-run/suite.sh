#!/usr/bin/env bash
# The GPU suite on kernel v22 (leanattn's peers as host-lengths steps beside stream-k reading its lengths on the device).
set -o pipefail
out=$1; mkdir -p .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-q5/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
rm -rf /tmp/data && cp -r data /tmp/data && cp .devbuild-xz-q5/kernels/*.json /tmp/data/kernels/  # the v22 fits
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=/tmp/data PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || echo "no FlashInfer wheels: the suite runs without it"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
python3 bench/gpu/suite.py --out $out/suite --budget-s 520 > $out/call.log 2>&1; echo "suite rc $?"
tail -20 $out/call.log
bash bench/gpu/pack_out.sh $out

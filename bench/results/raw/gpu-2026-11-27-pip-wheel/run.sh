#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q163/run.sh $OUT", carry=[".devbuild-xz-q163"], kind="nvidia-h100-x1")
# The Python wheel as `pip wheel .` built it here (nvcc found: the CUDA kernels inside), installed with pip into the
# machine's own virtual environment, the one holding its torch (/opt/torch/.venv: a venv made with
# --system-site-packages would not see it), then python/tests on the installed package from outside the sources (the
# GPU tests included), and examples/decode_loop.py on it.
set -uo pipefail
out=$1; q=.devbuild-xz-q163; r=$out/r; mkdir -p $r; src=$(pwd)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
python3 --version >> $r/machine.txt; python3 -c "import torch; print('torch', torch.__version__)" >> $r/machine.txt
py=$(command -v python3)
$py -m pip install --no-deps --no-index $q/leanattn-*.whl > $r/pip.txt 2>&1; echo "pip rc $?"; tail -2 $r/pip.txt
cd /tmp
$py -c "import leanattn; print(leanattn.__file__, leanattn.library_path, 'has_cuda', leanattn.has_cuda(), leanattn.__version__)" | tee $r/package.txt
LEANATTN_TEST_INSTALLED=1 timeout 420 $py -m pytest -q -p no:cacheprovider -rs $src/python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -4 $r/pytest.txt
timeout 300 $py $src/examples/decode_loop.py > $r/decode_loop.txt 2>&1; echo "decode_loop rc $? at $SECONDS s"; tail -6 $r/decode_loop.txt
date -u >> $r/machine.txt
cd $src && bash bench/gpu/pack_out.sh $out

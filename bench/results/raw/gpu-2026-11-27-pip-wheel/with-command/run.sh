#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q164/run.sh $OUT", carry=[".devbuild-xz-q164"], kind="nvidia-h100-x1")
# The wheel `pip wheel .` built on the CPU-only machine, now with the leanattn command in it (Boost found there,
# linked statically), installed with pip into this machine's own environment (/opt/torch/.venv); the command from
# the environment's PATH, run from /tmp: it must find its data/ (share/leanattn/data) and this GPU.
set -uo pipefail
out=$1; q=.devbuild-xz-q164; r=$out/r; mkdir -p $r; src=$(pwd)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
py=$(command -v python3)
$py -m pip install --no-deps --no-index $q/leanattn-*.whl > $r/pip.txt 2>&1; echo "pip rc $?"; tail -1 $r/pip.txt
cd /tmp
{ command -v leanattn; leanattn --version; leanattn devices; } > $r/command.txt 2>&1; echo "devices rc $?"; cat $r/command.txt
leanattn cuda validate --model llama-3-8b --batch 8 --ctx 4096 --layout paged --block-size 16 > $r/validate.txt 2>&1; echo "validate rc $?"; tail -5 $r/validate.txt
leanattn cuda bench --model llama-3-8b --batch 8 --ctx 4096 --strategy auto > $r/bench.txt 2>&1; echo "bench rc $?"; tail -8 $r/bench.txt
leanattn simulate --model llama-3-8b --batch 8 --ctx 4096 --device h200 > $r/simulate-h200.txt 2>&1; echo "simulate rc $?"; tail -6 $r/simulate-h200.txt
LEANATTN_TEST_INSTALLED=1 timeout 300 $py -m pytest -q -p no:cacheprovider $src/python/tests/test_package_location.py > $r/pytest.txt 2>&1; echo "pytest rc $?"; tail -1 $r/pytest.txt
date -u >> $r/machine.txt
cd $src && bash bench/gpu/pack_out.sh $out

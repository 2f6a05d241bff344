#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q136/run.sh $OUT", carry=[".devbuild-xz-q136"])
# HEAD 446cf95's CLI and library: Python's tests on the GPU (a library plan's JSON now carries auto's weighing), and a
# trace of the paper's plan on a ragged step replayed by simulate --trace from the snap the trace now records.
set -uo pipefail
out=$1; q=.devbuild-xz-q136; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
flags=$(grep ^l8b64 bench/results/raw/gpu-2026-11-27-live-steps/shapes.txt | cut -d' ' -f2-)
$L cuda bench $flags --strategy stream-k --stream-k-rule paper --grid 132 --repeat 50 --format json --trace $r/trace-l8b64-paper.json > $r/l8b64-paper-device.json 2> $r/log.txt
python3 -c "import json; j=json.load(open('$r/trace-l8b64-paper.json')); print('trace keys', [(k['strategy'], k['grid'], k.get('snap')) for k in j['kernels']])"
$L simulate --kernel leanattn-h100 --trace $r/trace-l8b64-paper.json > $r/replay.txt 2>&1; echo "replay rc $?"; cat $r/replay.txt
timeout 240 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -2 $r/pytest.txt
date -u >> $r/machine.txt
xz -9 $r/trace-l8b64-paper.json
bash bench/gpu/pack_out.sh $out

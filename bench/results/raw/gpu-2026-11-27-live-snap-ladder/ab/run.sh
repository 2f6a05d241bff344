#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q144/run.sh $OUT", carry=[".devbuild-xz-q144"])
# The live snap ladder (a live step that cannot keep its capacity plan's snap takes the largest halving of it that keeps
# the balance, on the host and in the device prologue alike): test_cuda (the prologue against the host's live_view,
# every kernel path), Python's tests, then ragged_live.py with the library before (a0a2237, old) and after (new), A B.
set -uo pipefail
out=$1; q=.devbuild-xz-q144; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/bins.tar.xz | tar xf - -C .devbuild
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 240 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $? at $SECONDS s"; tail -3 $r/test_cuda.txt
LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn-new.so timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests > $r/pytest.txt 2>&1; echo "pytest rc $? at $SECONDS s"; tail -1 $r/pytest.txt
for lib in old new; do
  LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn-$lib.so timeout 150 python3 bench/gpu/ragged_live.py --out $r/ragged-$lib --shapes 16x4096,64x1024,4x8192 --draws 2 --reps 40 > $r/ragged-$lib.log 2>&1; echo "ragged $lib rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
for lib in old new; do [ -f $r/ragged-$lib/ragged.jsonl ] && xz -9 $r/ragged-$lib/ragged.jsonl; done
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
set -uo pipefail
OUT=${OUT:-/tmp/out}
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/machine.txt; date -u > $OUT/date.txt
bash bench/gpu/check.sh .devbuild-v16 $OUT/check > $OUT/check-stdout.txt 2>&1
tail -8 $OUT/check-stdout.txt
bash bench/gpu/ab.sh .devbuild-v15b-slim .devbuild-v16 $OUT/ab --ragged > $OUT/ab-stdout.txt 2>&1
tail -45 $OUT/ab/ab.txt
for round in 1 2; do for side in A B; do dev=.devbuild-v15b-slim; [ $side = B ] && dev=.devbuild-v16
  echo "== decode_loop $side round $round" | tee -a $OUT/decode_loop.txt
  LEANATTN_LIBRARY=$PWD/$dev/libleanattn.so python3 examples/decode_loop.py --dtype fp16 2>&1 | tail -4 | tee -a $OUT/decode_loop.txt
done; done
bash bench/gpu/pack_out.sh "$OUT" > /dev/null 2>&1 || true

#!/usr/bin/env bash
# device call C (not committed): the final build: every path, every model, test_cuda, sanitizers, models beside SDPA
set -uo pipefail
out=$1
bash devcall_a.sh .devbuild-v17 "$out/check"
export LEANATTN_DATA=$PWD/data PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
LEANATTN_LIBRARY=$PWD/.devbuild-v17/libleanattn.so timeout 300 python3 bench/gpu/models.py --out "$out/models" > "$out/models.log" 2>&1
echo "models rc $?"; tail -3 "$out/models.log"
bash bench/gpu/pack_out.sh "$out"

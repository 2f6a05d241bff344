#!/usr/bin/env bash
# Are cuda bench's fast host-lengths fixed-split steps (Qwen2.5-7B q_len 4 at 16 splits, Falcon-7B at 26) correct?
# cuda validate on exactly those plans, both ways of reading the lengths, fp16 and bf16.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-q20/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for dt in fp16 bf16; do for l in host device; do
  .devbuild/leanattn cuda validate --model qwen2.5-7b --ctx 16384 --q-len 4 --strategy fixed-split --splits 16 --dtype $dt --lengths $l
  .devbuild/leanattn cuda validate --model qwen2.5-7b --ctx 16384 --q-len 4 --strategy fixed-split --splits 8 --dtype $dt --lengths $l
  .devbuild/leanattn cuda validate --model falcon-7b --ctx 16384 --strategy fixed-split --splits 26 --dtype $dt --lengths $l
done; done > $out/validate.log 2>&1; echo "validate rc $?"
grep -E "^(fixed|stream|no)|FAIL|error" $out/validate.log | head -20
bash bench/gpu/pack_out.sh $out

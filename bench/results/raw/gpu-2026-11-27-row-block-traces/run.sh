#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q151/run.sh $OUT", carry=[".devbuild-xz-q151"], kind="nvidia-h100-x1")
# HEAD da618d8's CLI (kernel v34). Traces of stream-k over row blocks (KV heads of more than 16 query rows), which the
# model predicts 20-25% fast, beside the same K and V read as one row block (q_len 4: 16 rows) and as one 32-row tile.
set -uo pipefail
out=$1; q=.devbuild-xz-q151; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
cat $r/machine.txt
shapes=(
  "rows32-b4-31k:--batch 4 --heads 16 --kv-heads 4 --head-dim 128 --ctx 31419 --q-len 8 --dtype bf16"
  "rows16-b4-31k:--batch 4 --heads 16 --kv-heads 4 --head-dim 128 --ctx 31419 --q-len 4 --dtype bf16"
  "rows32-tile32-b4-31k:--batch 4 --heads 16 --kv-heads 4 --head-dim 128 --ctx 31419 --q-len 8 --dtype bf16 --tile-rows 32"
  "rows32-b6-8k:--batch 6 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8138 --q-len 8 --dtype fp16"
  "rows16-b6-8k:--batch 6 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8138 --q-len 4 --dtype fp16"
  "falcon-b8-28k:--batch 8 --heads 71 --kv-heads 1 --head-dim 64 --ctx 28135 --q-len 1 --dtype bf16"
)
for entry in "${shapes[@]}"; do
  name=${entry%%:*}
  # shellcheck disable=SC2086
  timeout 120 .devbuild/leanattn cuda bench ${entry#*:} --repeat 50 --format json --trace $r/trace-$name.json > $r/$name.bench.json 2> $r/$name.log; echo "$name rc $? at $SECONDS s"
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

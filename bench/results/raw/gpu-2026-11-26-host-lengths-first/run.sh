#!/usr/bin/env bash
# Planned steps, first look: correctness on a few shapes (every strategy, host and device lengths), test_cuda of the
# new build (the hosts now lower their peers' flags), then two A/B tables: main (6ec3812) against the new build's
# run() (device lengths), and the new build's run() against its planned steps (host lengths).
set -uo pipefail
out=$1; mkdir -p $out
bash .devbuild-xz-p1/unpack.sh
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
{
for s in "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048" "--batch 4 --heads 32 --head-dim 64 --ctx 1024" \
         "--batch 3 --heads 8 --kv-heads 1 --head-dim 128 --ctx 5000,17,800" "--model falcon-7b --batch 2 --ctx 3000,900" \
         "--model llama-3-8b --batch 2 --q-len 4 --ctx 4000,300 --layout ragged" "--batch 2 --heads 16 --kv-heads 8 --head-dim 96 --ctx 3000,700 --layout paged" \
         "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768" "--batch 2 --heads 4 --head-dim 256 --ctx 3000,9 --layout token-major --dtype bf16"; do
  for L in host device; do echo "== $s --lengths $L"; .devbuild-new/leanattn cuda validate $s --lengths $L || echo "   ^ FAILED"; done
done } > $out/validate-quick.log 2>&1
echo "validate: $(grep -c FAILED $out/validate-quick.log) failed of $(grep -c '^==' $out/validate-quick.log)"
timeout 120 .devbuild-new/test_cuda > $out/test_cuda.log 2>&1; echo "test_cuda rc $?: $(tail -2 $out/test_cuda.log | head -1)"
bash bench/gpu/ab.sh .devbuild-base .devbuild-new $out/ab-base-new --models > /dev/null 2>&1
bash bench/gpu/ab.sh .devbuild-new ".devbuild-new:--lengths host" $out/ab-device-host --models > /dev/null 2>&1
cat $out/ab-base-new/ab.txt $out/ab-device-host/ab.txt
cd $out && tar czf ab-json.tgz ab-base-new ab-device-host && rm -rf ab-base-new/*.json ab-base-new/*.err ab-device-host/*.json ab-device-host/*.err
echo "done $SECONDS s"

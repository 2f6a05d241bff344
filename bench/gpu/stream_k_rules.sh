#!/usr/bin/env bash
# stream-k's two rules on the GPU: the aligned rule's plans validated against float64, then every shape timed
# under stream-k (aligned), fixed-split and no-split, and stream-k (paper), twice in alternation so that the
# spread between rounds shows. Writes OUT_DIR/rules.log.
# usage (on the GPU machine, from the repository root): bench/gpu/stream_k_rules.sh BIN OUT_DIR [TEST_CUDA]
set -uo pipefail
bin=$1; out=$2; test_cuda=${3:-}
export LEANATTN_DATA=${LEANATTN_DATA:-data}
mkdir -p "$out"
log=$out/rules.log
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } >"$log" 2>&1

[ -n "$test_cuda" ] && { "$test_cuda" 2>&1 | tail -2; } >>"$log"

# Validation: the aligned rule's own choice and forced snaps (empty CTAs, whole outputs), fp16 and bf16.
for c in "--batch 32 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048" \
         "--batch 4 --heads 32 --head-dim 64 --ctx 1024" \
         "--batch 5 --heads 40 --kv-heads 10 --head-dim 128 --ctx 100,2000,30000,7,4097" \
         "--batch 1 --heads 8 --kv-heads 1 --head-dim 128 --ctx 16384"; do
  for extra in "" "--strategy stream-k --snap 3" "--strategy stream-k --snap 100000"; do
    for dt in fp16 bf16; do
      echo "== validate $c $extra --dtype $dt" >>"$log"
      $bin cuda validate $c $extra --dtype $dt >>"$log" 2>&1 || echo "   ^ FAILED" >>"$log"
    done
  done
done

shapes=(
  "--batch 32 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "--batch 16 --heads 64 --kv-heads 8 --head-dim 128 --ctx 4096"
  "--batch 4 --heads 32 --head-dim 64 --ctx 1024"
  "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768"
  "--batch 6 --heads 48 --head-dim 64 --ctx 65536"
  "--batch 8 --heads 32 --kv-heads 8 --head-dim 128 --ctx 65536,1024,2048,512,30000,4096,100,8000"
  "--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 131072"
  "--batch 8 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8192"
  "--batch 1 --heads 8 --kv-heads 1 --head-dim 128 --ctx 16384"
)
for round in 1 2; do
  for s in "${shapes[@]}"; do
    echo "== round $round: $s" >>"$log"
    $bin cuda bench $s --strategy all --repeat 100 >>"$log" 2>&1
    $bin cuda bench $s --strategy stream-k --stream-k-rule paper --repeat 100 2>&1 | tail -1 | sed 's/^stream-k   /stream-k(p)/' >>"$log"
    [ $round = 1 ] && $bin schedule $s --ctas-per-sm 1 | sed -n 1,2p >>"$log"
  done
done
echo "done" >>"$log"

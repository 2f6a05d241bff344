#!/usr/bin/env bash
# Nsight Compute on the decode kernels of a few target shapes: each kernel's GPU time with caches flushed
# (ncu's default, like the suite's L2 flush) and with caches left warm, the warp stall reasons (an
# instruction-cache miss shows as "no instruction"), registers, spills and memory throughput; plus the size
# of every kernel's SASS. Writes OUT/ncu-NAME.txt, OUT/sass-sizes.txt and OUT/profile.txt (the digest).
# usage (on the GPU machine, from the repository root): bench/gpu/profile_kernels.sh DEVBUILD OUT
set -uo pipefail
dev=$1; out=$2
mkdir -p "$out"
export LEANATTN_DATA=$PWD/data
cuobjdump -sass "$dev/libleanattn.so" 2>/dev/null | awk '
  /Function : / { if (name) print count, name; name = $3; count = 0; next }
  /^ +\/\*[0-9a-f]+\*\// { count++ }
  END { if (name) print count, name }' | sort -rn >"$out/sass-sizes.txt"
targets=(
  "b1-h32kv8-d128-2k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "b16-h8kv1-d128-8k:--batch 16 --heads 8 --kv-heads 1 --head-dim 128 --ctx 8192"
  "b4-h32kv32-d64-1k:--batch 4 --heads 32 --head-dim 64 --ctx 1024"
)
metrics=gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
{
  echo "SASS instructions per kernel (largest first):"
  head -12 "$out/sass-sizes.txt"
  for t in "${targets[@]}"; do
    name=${t%%:*}; flags=${t#*:}
    for strategy in stream-k no-split; do
      # shellcheck disable=SC2086
      ncu --kernel-name regex:'decode|live_plan' --launch-skip 0 --launch-count 4 --section WarpStateStats --section LaunchStats \
          --metrics "$metrics" "$dev/leanattn" cuda bench $flags --strategy $strategy --repeat 1 >"$out/ncu-$name-$strategy.txt" 2>&1
      # shellcheck disable=SC2086
      ncu --cache-control none --kernel-name regex:'decode|live_plan' --launch-count 4 --metrics gpu__time_duration.sum \
          "$dev/leanattn" cuda bench $flags --strategy $strategy --repeat 1 >"$out/ncu-warm-$name-$strategy.txt" 2>&1
      echo "== $name $strategy (caches flushed)"
      grep -E '(decode|live_plan).*\(|gpu__time_duration|Registers Per Thread|Warp Cycles Per Issued|Stall|stall' "$out/ncu-$name-$strategy.txt" | cut -c1-150
      echo "-- the same, caches warm"
      grep -E '(decode|live_plan).*\(|gpu__time_duration' "$out/ncu-warm-$name-$strategy.txt" | cut -c1-150
    done
  done
} >"$out/profile.txt" 2>&1
cat "$out/profile.txt"

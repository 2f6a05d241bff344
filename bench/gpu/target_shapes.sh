# target_shapes.sh — sourced by trace_targets.sh and ab.sh: the named shapes every kernel version is judged on
# ("NAME:cuda-bench flags"), those of the targets in bench/results/gpu-decode-h100.md and the fixed-cost traces.
# shellcheck disable=SC2034
target_shapes=(
  "b16-h8kv1-d128-8k:--batch 16 --heads 8 --kv-heads 1 --head-dim 128 --ctx 8192"
  "b1-h32kv8-d128-32k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 32768"
  "b4-h32kv32-d64-1k:--batch 4 --heads 32 --head-dim 64 --ctx 1024"
  "b1-h32kv8-d128-2k:--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "b32-h32kv8-d128-2k:--batch 32 --heads 32 --kv-heads 8 --head-dim 128 --ctx 2048"
  "b16-h64kv8-d128-4k:--batch 16 --heads 64 --kv-heads 8 --head-dim 128 --ctx 4096"
)

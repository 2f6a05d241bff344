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

# Every-day model shapes at q_len 1 where SDPA's best backend was ahead (bench/results/gpu-decode-h100.md, models
# table), and one at q_len 4: ab.sh --models adds them.
model_shapes=(
  "llama-3-8b-b1-16k:--model llama-3-8b --batch 1 --ctx 16384"
  "qwen2.5-7b-b1-16k:--model qwen2.5-7b --batch 1 --ctx 16384"
  "llama-3.1-405b-b1-16k:--model llama-3.1-405b --batch 1 --ctx 16384"
  "falcon-7b-b1-16k:--model falcon-7b --batch 1 --ctx 16384"
  "phi-3-medium-b8-4k:--model phi-3-medium --batch 8 --ctx 4096"
  "llama-3-8b-b8-4k:--model llama-3-8b --batch 8 --ctx 4096"
  "llama-3-8b-b1-16k-q4:--model llama-3-8b --batch 1 --ctx 16384 --q-len 4"
)

#!/usr/bin/env python3
"""Draws the calibration sweeps: problem lines for `leanattn cuda bench --shapes` (and `leanattn calibrate`).

    python3 scripts/calibration_shapes.py --seed 1 --count 160 > data/calibration/train-shapes.txt
    python3 scripts/calibration_shapes.py --seed 2 --count 100 > data/calibration/heldout-shapes.txt
    python3 scripts/calibration_shapes.py --seed 3 --count 40 --live > data/calibration/live-shapes.txt
    python3 scripts/calibration_shapes.py --seed 4 --count 240 > data/calibration/train2-shapes.txt
    python3 scripts/calibration_shapes.py --seed 5 --count 40 --live > data/calibration/live2-shapes.txt

train2 and live2 add training problems beside train and live (a fit of 32 fields on 160 problems varied with the
problems it was given: 4-fold cross-validation put the 95th percentile at 8-16% by fold); the held-out sweep stays
the one drawn with seed 2.

Each line is one decode problem: a model's attention (heads, KV heads, head dim; sliced by a tensor-parallel
degree, as one GPU of a sharded model sees it), a batch, context lengths (a ragged batch for 40% of the
batches above one), q_len (1 for 80%) and a dtype. Only problems the GPU kernel takes (query rows = group x
q_len at most 128, 64 at head dim 256) and whose K and V weigh between 64 KiB and 1 GiB are kept, so a whole
sweep times in about a minute. The same seed draws the same lines on any machine (Python's own generator).

--live draws the steps a cache's plan runs instead: batches of 16-128 requests, each at a live length uniform in
1/16-1 of a capacity of 1,024-4,096 tokens (as bench/gpu/ragged_live.py draws them), many short outputs. Each problem
is two lines: every strategy's default plan, and stream-k on the paper's plan (snap 0), which a step of a capacity
plan runs where the live lengths would unbalance its snap (core/live_plan.hpp): many CTAs of several short segments.
"""
import argparse
import math
import random

# (query heads, KV heads, head dim) of models in data/models, and the paper's head dim 64 shapes.
MODELS = [
    (32, 32, 128),  # Llama-2-7B
    (32, 8, 128),   # Llama-3-8B
    (64, 8, 128),   # Llama-3-70B
    (128, 8, 128),  # Llama-3.1-405B
    (24, 8, 128),   # Llama-3.2-3B
    (28, 4, 128),   # Qwen2.5-7B
    (40, 8, 128),   # Qwen2.5-32B
    (32, 16, 128),  # Gemma-2-27B
    (16, 8, 256),   # Gemma-2-9B
    (32, 32, 96),   # Phi-3-mini
    (71, 1, 64),    # Falcon-7B (MQA)
    (32, 32, 64),   # the paper's head dim 64
    (48, 48, 64),
]
BATCHES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
MIN_BYTES, MAX_BYTES = 64 << 10, 1 << 30


def max_rows(head_dim):
    return 64 if head_dim == 256 else 128


def draw(rng):
    q_heads, kv_heads, head_dim = rng.choice(MODELS)
    tp = rng.choice([1, 1, 2, 4, 8])
    if kv_heads % tp == 0:
        q_heads, kv_heads = q_heads // tp, kv_heads // tp
    group = q_heads // kv_heads
    batch = rng.choice(BATCHES)
    longest = int(round(math.exp(rng.uniform(math.log(256), math.log(65536)))))
    ctx = [longest] * batch
    if batch > 1 and rng.random() < 0.4:
        ctx = [longest] + [rng.randint(max(1, longest // 16), longest) for _ in range(batch - 1)]
    q_len = 1 if rng.random() < 0.8 else rng.choice([2, 3, 4, 8])
    dtype = "bf16" if rng.random() < 0.2 else "fp16"
    kv_bytes = sum(ctx) * kv_heads * head_dim * 2 * 2
    if group * q_len > max_rows(head_dim) or not MIN_BYTES <= kv_bytes <= MAX_BYTES:
        return None
    ctx_flag = str(longest) if len(set(ctx)) == 1 else ",".join(map(str, ctx))
    return (f"--batch {batch} --heads {q_heads} --kv-heads {kv_heads} --head-dim {head_dim} --ctx {ctx_flag} "
            f"--q-len {q_len} --dtype {dtype}")


def draw_live(rng):
    q_heads, kv_heads, head_dim = rng.choice(MODELS)
    batch = rng.choice([16, 32, 64, 128])
    capacity = rng.choice([1024, 2048, 4096])
    ctx = [max(1, math.ceil(capacity * (1 / 16 + 15 / 16 * rng.random()))) for _ in range(batch)]
    q_len = 1 if rng.random() < 0.8 else 4
    dtype = "bf16" if rng.random() < 0.2 else "fp16"
    kv_bytes = sum(ctx) * kv_heads * head_dim * 2 * 2
    if (q_heads // kv_heads) * q_len > max_rows(head_dim) or not MIN_BYTES <= kv_bytes <= MAX_BYTES:
        return None
    return (f"--batch {batch} --heads {q_heads} --kv-heads {kv_heads} --head-dim {head_dim} --ctx {','.join(map(str, ctx))} "
            f"--q-len {q_len} --dtype {dtype}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--live", action="store_true", help="steps of a cache at ragged live lengths, each also as the paper's plan")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lines = []
    while len(lines) < args.count:
        line = draw_live(rng) if args.live else draw(rng)
        if line is not None and line not in lines:
            lines.append(line)
    live = " --live" if args.live else ""
    print(f"# {args.count} problems drawn by scripts/calibration_shapes.py --seed {args.seed} --count {args.count}{live}")
    if args.live:
        lines = [variant for line in lines for variant in (line, line + " --strategy stream-k --stream-k-rule paper")]
    print("\n".join(lines))


if __name__ == "__main__":
    main()

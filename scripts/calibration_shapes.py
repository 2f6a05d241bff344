#!/usr/bin/env python3
"""Draws the calibration sweeps: problem lines for `leanattn cuda bench --shapes` (and `leanattn calibrate`).

    python3 scripts/calibration_shapes.py --seed 1 --count 160 > data/calibration/train-shapes.txt
    python3 scripts/calibration_shapes.py --seed 2 --count 100 > data/calibration/heldout-shapes.txt

Each line is one decode problem: a model's attention (heads, KV heads, head dim; sliced by a tensor-parallel
degree, as one GPU of a sharded model sees it), a batch, context lengths (a ragged batch for 40% of the
batches above one), q_len (1 for 80%) and a dtype. Only problems the GPU kernel takes (query rows = group x
q_len at most 128, 64 at head dim 256) and whose K and V weigh between 64 KiB and 1 GiB are kept, so a whole
sweep times in about a minute. The same seed draws the same lines on any machine (Python's own generator).
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lines = []
    while len(lines) < args.count:
        line = draw(rng)
        if line is not None and line not in lines:
            lines.append(line)
    print(f"# {args.count} problems drawn by scripts/calibration_shapes.py --seed {args.seed} --count {args.count}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

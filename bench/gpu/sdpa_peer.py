#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention as the peer a user would pick, timed the way `leanattn cuda bench` is.

One decode step: q (B, Hq, 1, d), K and V (B, Hkv, N, d), fp16 or bf16, random (never zeros). Each backend
(flash, cuDNN, memory-efficient) is timed with CUDA events after an L2 flush, median of --repeat runs, and
checked against a float64 reference computed on the same inputs (rel L2). Prints one JSON line per backend.
usage: sdpa_peer.py --batch 6 --heads 48 --kv-heads 48 --head-dim 64 --ctx 65536 [--dtype fp16] [--repeat 50]
"""
import argparse
import json
import math

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--kv-heads", type=int, required=True)
    ap.add_argument("--head-dim", type=int, required=True)
    ap.add_argument("--ctx", type=int, required=True)
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    ap.add_argument("--repeat", type=int, default=50)
    a = ap.parse_args()
    dtype = torch.float16 if a.dtype == "fp16" else torch.bfloat16
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.randn(a.batch, a.heads, 1, a.head_dim, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(a.batch, a.kv_heads, a.ctx, a.head_dim, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(a.batch, a.kv_heads, a.ctx, a.head_dim, device="cuda", dtype=dtype, generator=g)
    group = a.heads // a.kv_heads
    # float64 reference on the first request only (enough to catch a wrong backend; the full one costs memory).
    kr = k[:1].double().repeat_interleave(group, dim=1)
    vr = v[:1].double().repeat_interleave(group, dim=1)
    ref = torch.softmax(q[:1].double() @ kr.transpose(-1, -2) / math.sqrt(a.head_dim), dim=-1) @ vr
    del kr, vr
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    kv_bytes = 2 * k.numel() * k.element_size()
    for name, backend in [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION)]:
        row = {"peer": "torch.sdpa", "backend": name, "torch": torch.__version__}
        try:
            with sdpa_kernel([backend]):
                run = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=group > 1)
                out = run()
                torch.cuda.synchronize()
                row["rel_l2_err"] = ((out[:1].double() - ref).norm() / ref.norm()).item()
                times = []
                for i in range(a.repeat + 3):
                    flush.random_()
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record()
                    run()
                    e.record()
                    e.synchronize()
                    if i >= 3:
                        times.append(s.elapsed_time(e) * 1e3)
                times.sort()
                us = times[len(times) // 2]
                row.update(median_us=us, gbps=kv_bytes / (us * 1e-6) / 1e9)
        except Exception as ex:  # a backend that refuses this shape says why
            row["error"] = str(ex).splitlines()[0][:200]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`strategy="auto"` through the Python package on the GPU: each output against float64 (NaN-free, rel. L2 within
1e-3 for fp16), beside the stream-k plan's. Four shapes: GQA long context, many short requests, MQA (71 rows),
head dim 256 with q_len 4 (causal). Run on the GPU machine with LEANATTN_LIBRARY pointing at the built library;
prints one line per shape and "auto on GPU: ok" or exits 1.
"""
import sys

import torch

import leanattn


def main():
    torch.manual_seed(0)
    ok = True
    for (B, Hq, Hkv, d, N, qlen) in [(1, 32, 8, 128, 16384, 1), (8, 28, 4, 128, 3000, 1), (4, 71, 1, 64, 8192, 1), (2, 16, 8, 256, 5000, 4)]:
        q = torch.randn(B, qlen, Hq, d, device="cuda", dtype=torch.float16)
        k = torch.randn(B, N, Hkv, d, device="cuda", dtype=torch.float16)
        v = torch.randn(B, N, Hkv, d, device="cuda", dtype=torch.float16)
        lens = torch.randint(N // 2, N + 1, (B,), device="cuda", dtype=torch.int32)
        out = leanattn.decode(q, k, v, lens, strategy="auto")
        ref_out = leanattn.decode(q, k, v, lens, strategy="stream-k")
        # float64 reference
        g = Hq // Hkv
        o64 = torch.empty_like(out, dtype=torch.float64)
        for b in range(B):
            L = int(lens[b])
            kk = k[b, :L].double().repeat_interleave(g, dim=1)  # (L, Hq, d)
            vv = v[b, :L].double().repeat_interleave(g, dim=1)
            qq = q[b].double()  # (qlen, Hq, d)
            s = torch.einsum("qhd,lhd->hql", qq, kk) / d ** 0.5
            pos = torch.arange(L, device="cuda")
            for i in range(qlen):
                s[:, i, pos > L - qlen + i] = float("-inf")
            o64[b] = torch.einsum("hql,lhd->qhd", torch.softmax(s, -1), vv)
        rel = ((out.double() - o64).norm() / o64.norm()).item()
        print(B, Hq, Hkv, d, N, qlen, "auto rel_l2 %.2e" % rel, "max diff vs stream-k %.2e" % (out.float() - ref_out.float()).abs().max().item())
        ok &= rel < 1e-3 and torch.isfinite(out).all().item()
    print("auto on GPU:", "ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

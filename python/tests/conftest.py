"""Shared helpers: a float64 reference, random inputs (never zeros), caches in every layout."""
import math
import os
import pathlib
import sys

import pytest
import torch

# The package from this source tree, unless the tests are to check an installed one (scripts/check_pip.sh: the wheel).
if os.environ.get("LEANATTN_TEST_INSTALLED") != "1":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def reference(q, k, v, seqlens, block_table=None, scale=None):
    """softmax(q·Kᵀ·scale)·V in float64 per request, causal among the q_len new tokens; k, v (B, N, Hkv, d) or paged.
    Returns out (B, q_len, Hq, d) and lse (B, Hq, q_len), float64."""
    batch, q_len, q_heads, d = q.shape
    kv_heads = k.shape[2]
    group = q_heads // kv_heads
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    out = torch.zeros(batch, q_len, q_heads, d, dtype=torch.float64)
    lse = torch.zeros(batch, q_heads, q_len, dtype=torch.float64)
    for b in range(batch):
        n = int(seqlens[b])
        if block_table is None:
            kb, vb = k[b, :n], v[b, :n]
        else:
            bs = k.shape[1]
            ids = block_table[b, : (n + bs - 1) // bs].long().cpu()
            kb = k.cpu()[ids].reshape(-1, kv_heads, d)[:n]
            vb = v.cpu()[ids].reshape(-1, kv_heads, d)[:n]
        kb = kb.cpu().double().repeat_interleave(group, dim=1)  # (n, Hq, d)
        vb = vb.cpu().double().repeat_interleave(group, dim=1)
        for i in range(q_len):
            visible = n - q_len + i + 1
            if visible <= 0:  # a row that sees no token (an empty slot's): out 0, lse -inf
                lse[b, :, i] = -math.inf
                continue
            s = torch.einsum("hd,nhd->hn", q[b, i].cpu().double(), kb[:visible]) * scale
            out[b, i] = torch.einsum("hn,nhd->hd", torch.softmax(s, -1), vb[:visible])
            lse[b, :, i] = torch.logsumexp(s, -1)
    return out, lse


def rel_l2(out, ref):
    return ((out.double().cpu() - ref).norm() / ref.norm()).item()


TOLERANCE = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 8e-3}


def uniform(shape, dtype, generator, device="cpu"):
    """Uniform in [-√3, √3): unit variance, never all zeros."""
    x = (torch.rand(shape, generator=generator, dtype=torch.float32) * 2 - 1) * math.sqrt(3.0)
    return x.to(dtype).to(device)


def make_cache(layout, batch, capacity, kv_heads, d, dtype, generator, block_size=16, device="cpu"):
    """K and V of one layout and the block table (None unless paged). token-major is (B, N, Hkv, d); padded is
    (B, Hkv, N, d) seen through a transposed view (strides, not a copy)."""
    if layout == "token-major":
        return uniform((batch, capacity, kv_heads, d), dtype, generator, device), uniform((batch, capacity, kv_heads, d), dtype, generator, device), None
    if layout == "padded":
        k = uniform((batch, kv_heads, capacity, d), dtype, generator, device).transpose(1, 2)
        v = uniform((batch, kv_heads, capacity, d), dtype, generator, device).transpose(1, 2)
        return k, v, None
    assert layout == "paged"
    per = (capacity + block_size - 1) // block_size
    blocks = batch * per + 3  # a few spare blocks no table points to
    k = uniform((blocks, block_size, kv_heads, d), dtype, generator, device)
    v = uniform((blocks, block_size, kv_heads, d), dtype, generator, device)
    table = torch.randperm(blocks, generator=generator)[: batch * per].reshape(batch, per).to(torch.int32).to(device)
    return k, v, table


@pytest.fixture
def generator(request):
    g = torch.Generator()
    g.manual_seed(int(os.environ.get("LEANATTN_TEST_SEED", "1234")) + hash(request.node.name) % 1000)
    return g


has_gpu = torch.cuda.is_available()

"""One shape's inputs on the GPU, the views each peer reads them through, and the float64 reference.

Storage (one copy of K and V for every peer, so every peer reads the very same bytes):
    q   (B, 1, Hq, d)             uniform in [-sqrt 3, sqrt 3): unit variance, never zeros; fixed seed
    K,V (B, Hkv, N, d)            likewise; N = longest context rounded up to 16; tokens past a request's
                                  length are random too (a peer that reads them gets a wrong answer)
Views of that storage, no copies:
    padded(): (B, N, Hkv, d) strided view                   leanattn's strided cache
    paged16_nhd(): (blocks, 16, Hkv, d) + block table       leanattn's paged cache, blocks of 16 tokens
    paged16_hnd(): (blocks, Hkv, 16, d) + page lists        FlashInfer's HND paged cache, pages of 16 tokens
The paged views work because block id b * Hkv * N/16 + p starts at request b, token 16p, head 0: a block's
tokens are d elements apart and its heads N * d apart, which a strided view expresses.
"""
import math

import torch

from shapes import Shape

TORCH_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
TOLERANCE = {"fp16": 1e-3, "bf16": 8e-3}  # rel. L2, as `leanattn cuda validate`: twice the output's unit roundoff
PAGE = 16
REFERENCE_CHUNK_BYTES = 1 << 30
DEVICE = "cuda"  # where the suite puts its tensors (its tests run the same code on "cpu")


def sync():
    """Waits for the GPU (nothing to wait for on the CPU)."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def round_up(x, m):
    return (x + m - 1) // m * m


class Inputs:
    def __init__(self, shape: Shape, seed=1, device=None):
        device = device or DEVICE
        self.shape = shape
        self.dtype = TORCH_DTYPES[shape.dtype]
        self.capacity = round_up(max(shape.ctx), PAGE)
        g = torch.Generator(device=device).manual_seed(seed)
        a = math.sqrt(3.0)
        b, hq, hkv, d = shape.batch, shape.q_heads, shape.kv_heads, shape.head_dim
        self.q = torch.empty(b, 1, hq, d, dtype=self.dtype, device=device).uniform_(-a, a, generator=g)
        self.k = torch.empty(b, hkv, self.capacity, d, dtype=self.dtype, device=device).uniform_(-a, a, generator=g)
        self.v = torch.empty_like(self.k).uniform_(-a, a, generator=g)
        self.seqlens = torch.tensor(shape.ctx, dtype=torch.int32, device=device)

    def padded(self):
        """(B, N, Hkv, d) views of K and V: leanattn's strided cache."""
        return self.k.transpose(1, 2), self.v.transpose(1, 2)

    def _page_geometry(self):
        s = self.shape
        per = self.capacity // PAGE
        blocks = (s.batch - 1) * s.kv_heads * per + per
        first = torch.arange(s.batch, device=self.k.device, dtype=torch.int64)[:, None] * (s.kv_heads * per)
        ids = (first + torch.arange(per, device=self.k.device)[None, :]).to(torch.int32)  # (B, N/16)
        return per, blocks, ids

    def paged16_nhd(self):
        """(blocks, 16, Hkv, d) views of K and V and the (B, N/16) int32 block table: leanattn's paged cache."""
        s, d, n = self.shape, self.shape.head_dim, self.capacity
        _, blocks, table = self._page_geometry()
        size, stride = (blocks, PAGE, s.kv_heads, d), (PAGE * d, d, n * d, 1)
        return self.k.as_strided(size, stride), self.v.as_strided(size, stride), table

    def paged16_hnd(self):
        """(pages, Hkv, 16, d) views of K and V, and FlashInfer's page lists: indptr (B+1), indices, last_page_len."""
        s, d, n = self.shape, self.shape.head_dim, self.capacity
        _, blocks, table = self._page_geometry()
        size, stride = (blocks, s.kv_heads, PAGE, d), (PAGE * d, n * d, d, 1)
        pages = [(c + PAGE - 1) // PAGE for c in s.ctx]
        indices = torch.cat([table[b, :p] for b, p in enumerate(pages)])
        indptr = torch.tensor([0] + list(_cumsum(pages)), dtype=torch.int32, device=self.k.device)
        last = torch.tensor([c - PAGE * (p - 1) for c, p in zip(s.ctx, pages)], dtype=torch.int32, device=self.k.device)
        return self.k.as_strided(size, stride), self.v.as_strided(size, stride), indptr, indices, last

    def paged16_contiguous_hnd(self):
        """A contiguous copy of K and V as (B * N/16, Hkv, 16, d) pages, and its page lists (a fallback for a
        FlashInfer that refuses the strided view; costs one more copy of K and V)."""
        s, d = self.shape, self.shape.head_dim
        per = self.capacity // PAGE
        to_pages = lambda t: t.view(s.batch, s.kv_heads, per, PAGE, d).permute(0, 2, 1, 3, 4).reshape(s.batch * per, s.kv_heads, PAGE, d)
        pages = [(c + PAGE - 1) // PAGE for c in s.ctx]
        indices = torch.cat([torch.arange(b * per, b * per + p, dtype=torch.int32, device=self.k.device) for b, p in enumerate(pages)])
        indptr = torch.tensor([0] + list(_cumsum(pages)), dtype=torch.int32, device=self.k.device)
        last = torch.tensor([c - PAGE * (p - 1) for c, p in zip(s.ctx, pages)], dtype=torch.int32, device=self.k.device)
        return to_pages(self.k), to_pages(self.v), indptr, indices, last

    def layout(self, name, block_size=0, seed=2):
        """K, V and block table (or None) in one of the Python package's layouts, holding the same tokens:
        padded (the strided view), token-major (a contiguous (B, N, Hkv, d) copy), paged (a copy in blocks of
        block_size tokens at shuffled ids, so that a table read wrongly shows). For the layout check."""
        if name == "padded":
            k, v = self.padded()
            return k, v, None
        if name == "token-major":
            return self.k.transpose(1, 2).contiguous(), self.v.transpose(1, 2).contiguous(), None
        assert name == "paged", name
        s = self.shape
        per = (self.capacity + block_size - 1) // block_size
        g = torch.Generator().manual_seed(seed)
        perm = torch.randperm(s.batch * per, generator=g).to(self.k.device)

        def blocks(t):
            tokens = torch.empty(s.batch, per * block_size, s.kv_heads, s.head_dim, dtype=t.dtype, device=t.device).uniform_(-1, 1)
            tokens[:, :self.capacity] = t.transpose(1, 2)
            out = torch.empty(s.batch * per, block_size, s.kv_heads, s.head_dim, dtype=t.dtype, device=t.device)
            out[perm] = tokens.view(s.batch * per, block_size, s.kv_heads, s.head_dim)
            return out

        return blocks(self.k), blocks(self.v), perm.view(s.batch, per).to(torch.int32)

    def sdpa_kv(self):
        """K and V as SDPA takes them, (B, Hkv, max ctx, d), and the (B, 1, 1, max ctx) mask of valid tokens
        (None when every request is as long as the longest)."""
        s = self.shape
        longest = max(s.ctx)
        k, v = self.k[:, :, :longest], self.v[:, :, :longest]
        if not s.ragged:
            return k, v, None
        mask = torch.arange(longest, device=self.k.device)[None, :] < self.seqlens.to(torch.int64)[:, None]
        return k, v, mask[:, None, None, :]

    def reference(self):
        """softmax(q Kᵀ / sqrt d) V in float64 over each request's own tokens: (B, 1, Hq, d)."""
        s = self.shape
        g, d = s.group, s.head_dim
        out = torch.empty(s.batch, 1, s.q_heads, d, dtype=torch.float64, device=self.q.device)
        scale = 1.0 / math.sqrt(d)
        for b, n in enumerate(s.ctx):
            q = self.q[b, 0].double().view(s.kv_heads, g, d)
            heads = max(1, REFERENCE_CHUNK_BYTES // (2 * n * d * 8))
            for h0 in range(0, s.kv_heads, heads):
                h1 = min(s.kv_heads, h0 + heads)
                scores = torch.bmm(q[h0:h1], self.k[b, h0:h1, :n].double().transpose(1, 2)) * scale  # (h, g, n)
                out[b, 0, h0 * g:h1 * g] = torch.bmm(torch.softmax(scores, dim=-1), self.v[b, h0:h1, :n].double()).reshape(-1, d)
        return out


def _cumsum(values):
    total = 0
    for v in values:
        total += v
        yield total


def rel_l2(out, ref):
    """||out - ref|| / ||ref|| in float64; inf when out holds a NaN or an infinity (a poisoned element survived)."""
    out = out.double()
    if not torch.isfinite(out).all():
        return math.inf
    return ((out - ref).norm() / ref.norm()).item()

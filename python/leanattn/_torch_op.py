"""decode() as a torch.library custom op where the installed PyTorch has them (2.4 and later), so that
torch.compile keeps it as one opaque node instead of breaking the graph around a ctypes call."""
from typing import Optional, Tuple

import torch

from .decode import decode_impl

registered = hasattr(torch, "library") and hasattr(torch.library, "custom_op")

if registered:

    @torch.library.custom_op("leanattn::decode", mutates_args=())
    def decode_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, cache_seqlens: torch.Tensor,
                  block_table: Optional[torch.Tensor], softmax_scale: float, strategy: str) -> Tuple[torch.Tensor, torch.Tensor]:
        out, lse = decode_impl(q, k_cache, v_cache, cache_seqlens, block_table, softmax_scale or None, strategy, return_lse=True)
        return out, lse

    @decode_op.register_fake
    def _(q, k_cache, v_cache, cache_seqlens, block_table, softmax_scale, strategy):
        batch, q_len, q_heads, _ = q.shape
        return torch.empty_like(q, memory_format=torch.contiguous_format), q.new_empty((batch, q_heads, q_len), dtype=torch.float32)

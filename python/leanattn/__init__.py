"""leanattn: LeanAttention's stream-K decode attention on PyTorch tensors (CPU and CUDA), plus the planner and
simulator of the leanattn toolkit.

    out = leanattn.decode(q, k_cache, v_cache, cache_seqlens, block_table=None, softmax_scale=None,
                          strategy="auto", return_lse=False)
    plan = leanattn.DecodePlan(q, k_cache, v_cache, block_table)      # for CUDA graphs: plan.run(..., out=out)
    leanattn.schedule(batch=1, heads=2, head_dim=64, ctx=1280, device="paper-5sm")   # the CLI's JSON, as a dict
    leanattn.simulate(batch=6, heads=48, head_dim=64, ctx=65536)
    leanattn.library_path, leanattn.has_cuda()     # the libleanattn.so loaded, and whether it carries the CUDA kernels
"""
from ._library import has_cuda, version, InternalError, library_path
from ._torch_op import registered as custom_op_registered
from .decode import DecodePlan, _Shape, _scale_for_c, decode_impl, require_forward_only
from .reports import schedule, simulate

__version__ = version()


def decode(q, k_cache, v_cache, cache_seqlens, block_table=None, softmax_scale=None, strategy="auto", return_lse=False):
    """Attention of q over the first cache_seqlens tokens of each request's cache, as flash_attn_with_kvcache:

        q             (batch, q_len, q_heads, head_dim)
        k_cache       (batch, N, kv_heads, head_dim), or with block_table a paged cache
                      (num_blocks, block_size, kv_heads, head_dim); v_cache alike (same shape and strides, but on
                      dimensions of size 1)
        cache_seqlens (batch,) int32: each request's tokens, the q_len new ones included
        block_table   (batch, max_blocks) int32, or None
        softmax_scale a finite positive number, or None for 1/sqrt(head_dim)
        returns       out (batch, q_len, q_heads, head_dim) in q's dtype [, softmax_lse (batch, q_heads, q_len) float32]

    Query token i of q_len sees the first seqlen - q_len + i + 1 tokens; a request of length 0 (a padded batch's empty
    slot) gets out 0 and lse -inf. CUDA tensors run on torch's current stream, CPU tensors on the CPU executor. Raises
    TypeError/ValueError naming the argument for a wrong device, dtype, shape, stride, a negative length, one between
    1 and q_len - 1 or beyond the cache, a block table out of range, or an input that requires grad
    while autograd records (leanattn has no backward: call it under torch.no_grad() or torch.inference_mode());
    nothing is written then. strategy: as DecodePlan's.
    The DecodePlan made for a call is kept per shape, strategy, thread and CUDA stream; beyond 32 plans the least
    recently used is dropped."""
    if custom_op_registered:
        import torch
        # The op's schema would refuse a non-tensor with its own RuntimeError, and tensors on another device (meta, say)
        # could reach its fake implementation, which checks nothing: the arguments are checked here first, as
        # decode_impl checks them.
        _Shape(q, k_cache, v_cache, block_table)
        require_forward_only(q=q, k_cache=k_cache, v_cache=v_cache)
        if not isinstance(cache_seqlens, torch.Tensor):
            raise TypeError(f"cache_seqlens must be a tensor of int32 lengths, got {type(cache_seqlens).__name__}")
        if not isinstance(strategy, str):
            raise TypeError(f"strategy must be a str, got {type(strategy).__name__}")  # as decode_impl says it
        out, lse = torch.ops.leanattn.decode(q, k_cache, v_cache, cache_seqlens, block_table, _scale_for_c(softmax_scale), strategy)
        return (out, lse) if return_lse else out
    return decode_impl(q, k_cache, v_cache, cache_seqlens, block_table, softmax_scale, strategy, return_lse)


__all__ = ["decode", "DecodePlan", "schedule", "simulate", "has_cuda", "version", "InternalError", "library_path", "__version__"]

"""The peers the suite times, each behind the same two calls:

    run = peer.prepare(inputs)   plans, allocates its output; raises (with the peer's own words) if it refuses
    out = run()                  one decode step on torch's current stream; returns the (B, 1, Hq, d) output
    run.poison()                 fills the output run() will write with NaN (before a check)

    leanattn/<strategy>          leanattn.DecodePlan(strategy=...) on the strided (B, N, Hkv, d) view, run as a host-lengths
                                 step (the lengths passed as host_seqlens, as SDPA's dense call fixes them on the host)
    leanattn/stream-k-paged16    the same on the paged view, blocks of 16 tokens (beside FlashInfer's pages)
    leanattn/stream-k-device     stream-k reading cache_seqlens on the device at every step (a prologue kernel): the
                                 step a CUDA graph replays while lengths grow
    sdpa/<backend>               torch's scaled_dot_product_attention with one backend enabled (sdpa_kernel):
                                 q (B, Hq, 1, d) over K, V (B, Hkv, max ctx, d); GQA through enable_gqa=True;
                                 a ragged batch padded to its longest request with a boolean mask (a backend
                                 that refuses masks is reported as refusing)
    flashinfer/decode            FlashInfer's BatchDecodeWithPagedKVCacheWrapper (its CUDA-core decode kernel,
                                 use_tensor_cores=False) on an HND paged view of pages of 16 tokens, CUDA-graph
                                 mode with fixed page-list buffers
"""
import torch

LEANATTN_STRATEGIES = ("stream-k", "fixed-split", "no-split")
SDPA_BACKENDS = ("flash", "cudnn", "efficient")


class LeanattnPeer:
    def __init__(self, strategy, paged=False, device_lengths=False):
        self.strategy = strategy
        self.paged = paged
        self.device_lengths = device_lengths
        self.name = f"leanattn/{strategy}" + ("-paged16" if paged else "") + ("-device" if device_lengths else "")

    def prepare(self, inputs):
        import leanattn
        if not leanattn.has_cuda():
            raise RuntimeError("libleanattn.so was built without its CUDA backend (leanattn.has_cuda() is False)")
        if self.paged:
            k, v, table = inputs.paged16_nhd()
        else:
            (k, v), table = inputs.padded(), None
        q, lengths = inputs.q, inputs.seqlens
        plan = leanattn.DecodePlan(q, k, v, table, strategy=self.strategy, lengths="device" if self.device_lengths else "host")
        out = torch.empty_like(q)
        plan.run(q, k, v, lengths, table, out=out, check_lengths=True)  # lengths and table checked once, here
        host_lengths = None if self.device_lengths else lengths.cpu()

        def run():
            plan.run(q, k, v, lengths, table, out=out, check_lengths=False, host_seqlens=host_lengths)
            return out

        run.poison = lambda: out.fill_(float("nan"))
        run.keep = (plan, k, v, table)
        return run


class SdpaPeer:
    def __init__(self, backend):
        self.backend = backend
        self.name = f"sdpa/{backend}"

    def prepare(self, inputs):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        import torch.nn.functional as F
        backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                   "efficient": SDPBackend.EFFICIENT_ATTENTION}[self.backend]
        q = inputs.q.transpose(1, 2).contiguous()  # (B, Hq, 1, d): the same memory (q_len 1), no copy
        k, v, mask = inputs.sdpa_kv()
        gqa = inputs.shape.group > 1

        def run():
            with sdpa_kernel([backend]):
                out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=gqa)
            return out.transpose(1, 2)

        def poison():
            """SDPA allocates its output: NaN-fill a block of that size and free it, so the caching allocator
            hands that block to the next output of the same size (stale correct values cannot pass a check)."""
            block = torch.full((q.shape[0], q.shape[1], 1, q.shape[3]), float("nan"), dtype=q.dtype, device=q.device)
            del block

        run.poison = poison
        return run


class FlashInferPeer:
    name = "flashinfer/decode"
    WORKSPACE_BYTES = 128 * 2**20

    def prepare(self, inputs):
        """On a strided HND view of the shared K and V (no copy)."""
        import flashinfer
        return self._prepare(flashinfer, inputs, inputs.paged16_hnd())

    def prepare_copy(self, inputs):
        """On a contiguous paged copy of K and V: the fallback for a FlashInfer that refuses the view or gets it
        wrong (the suite tries it then, if the copy fits in memory)."""
        import flashinfer
        free, _ = torch.cuda.mem_get_info()
        if 2 * inputs.k.numel() * inputs.k.element_size() > free - (2 << 30):
            raise RuntimeError("no room for a contiguous paged copy of K and V")
        run = self._prepare(flashinfer, inputs, inputs.paged16_contiguous_hnd())
        run.note = "contiguous paged copy of K and V"
        return run

    def _prepare(self, flashinfer, inputs, paged):
        s = inputs.shape
        k, v, indptr, indices, last = paged
        workspace = torch.zeros(self.WORKSPACE_BYTES, dtype=torch.uint8, device=inputs.q.device)
        wrapper = flashinfer.BatchDecodeWithPagedKVCacheWrapper(
            workspace, kv_layout="HND", use_cuda_graph=True, use_tensor_cores=False, paged_kv_indptr_buffer=indptr,
            paged_kv_indices_buffer=indices, paged_kv_last_page_len_buffer=last)
        wrapper.plan(indptr, indices, last, s.q_heads, s.kv_heads, s.head_dim, 16, q_data_type=inputs.dtype,
                     kv_data_type=inputs.dtype)
        q = inputs.q[:, 0].contiguous()  # (B, Hq, d)
        out = torch.empty_like(q)

        def run():
            wrapper.run(q, (k, v), out=out)
            return out.unsqueeze(1)

        run.poison = lambda: out.fill_(float("nan"))
        run.keep = (workspace, wrapper, k, v, indptr, indices, last)
        return run


def all_peers(flashinfer=True, paged=True):
    peers = [LeanattnPeer(s) for s in LEANATTN_STRATEGIES] + [LeanattnPeer("stream-k", device_lengths=True)]
    if paged:
        peers.append(LeanattnPeer("stream-k", paged=True))
    peers += [SdpaPeer(b) for b in SDPA_BACKENDS]
    if flashinfer:
        peers.append(FlashInferPeer())
    return peers

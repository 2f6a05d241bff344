#!/usr/bin/env python3
"""Compiles FlashInfer's decode kernels for one dtype and head dim (its JIT builds them at first use) by running
one tiny decode, so that the suite's timed runs find them built. Prints one JSON line: what, ok, seconds, error.

FlashInfer writes what it builds under $FLASHINFER_WORKSPACE_BASE/.cache/flashinfer (the suite points it into
the repository's ignored build-flashinfer/, which a warm GPU machine keeps between calls). The suite starts one
of these per (dtype, head dim) in parallel, while it validates.
usage: flashinfer_warmup.py --dtype fp16|bf16 --head-dim 64|128
"""
import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", choices=["fp16", "bf16"], required=True)
    ap.add_argument("--head-dim", type=int, required=True)
    a = ap.parse_args()
    what = f"flashinfer decode {a.dtype} d{a.head_dim}"
    start = time.monotonic()
    try:
        import torch
        import flashinfer
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[a.dtype]
        kv_heads, group, page, pages = 2, 4, 16, 4
        k = torch.randn(pages, kv_heads, page, a.head_dim, dtype=dtype, device="cuda")
        v = torch.randn_like(k)
        q = torch.randn(1, kv_heads * group, a.head_dim, dtype=dtype, device="cuda")
        indptr = torch.tensor([0, pages], dtype=torch.int32, device="cuda")
        indices = torch.arange(pages, dtype=torch.int32, device="cuda")
        last = torch.tensor([page], dtype=torch.int32, device="cuda")
        workspace = torch.zeros(128 * 2**20, dtype=torch.uint8, device="cuda")
        wrapper = flashinfer.BatchDecodeWithPagedKVCacheWrapper(
            workspace, kv_layout="HND", use_cuda_graph=True, use_tensor_cores=False, paged_kv_indptr_buffer=indptr,
            paged_kv_indices_buffer=indices, paged_kv_last_page_len_buffer=last)
        wrapper.plan(indptr, indices, last, kv_heads * group, kv_heads, a.head_dim, page, q_data_type=dtype, kv_data_type=dtype)
        out = wrapper.run(q, (k, v))
        torch.cuda.synchronize()
        ok = bool(torch.isfinite(out).all())
        row = {"what": what, "ok": ok, "seconds": time.monotonic() - start, "error": "" if ok else "non-finite output",
               "version": flashinfer.__version__}
    except Exception as e:  # what failed is the record
        row = {"what": what, "ok": False, "seconds": time.monotonic() - start, "error": f"{type(e).__name__}: {str(e)[-600:]}"}
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A real decode loop: a few transformer layers with random weights at Llama-3-8B's attention shape, a paged KV
cache that grows every step, the whole step captured in a CUDA graph, attention by leanattn — beside the same
loop with PyTorch's scaled_dot_product_attention on a dense cache with a length mask (how SDPA is used for
decoding). Prints how far apart the two attentions put the model after one step (the correctness check: the exit
status is 1 past 5%), then tokens/s for both.

    python3 examples/decode_loop.py                          # CUDA: 4 layers, batch 16, ragged prompts 512-4096
    python3 examples/decode_loop.py --device cpu --tiny      # a small CPU run (what CI does)

Per layer and step: RMSNorm → QKV projection → write this token's K and V into its cache block → attention over
the request's cache → output projection → residual → a SwiGLU MLP → residual. The next token is the argmax of the
logits (random weights: the tokens mean nothing; the work is a real decoder's). No rotary embedding: it changes
no attention cost.

The lengths grow on the device inside the graph; the host keeps them too (every request gains one token a step), so
before each replay it stages that step's work for the captured attention (DecodePlan.stage, once for all layers: they
share the lengths and the plan), the graph replaying run(staged=True); --lengths device has the kernels read the
lengths on the GPU instead.
"""
import argparse
import math
import pathlib
import sys
import time

import torch
import torch.nn.functional as F

try:
    import leanattn  # installed: `pip install .`
except ImportError:  # else this repository's package, with its build's library (build/capi) or $LEANATTN_LIBRARY
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
    import leanattn  # noqa: E402


def parse():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"])
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=128, help="decode steps timed")
    ap.add_argument("--prompt-min", type=int, default=512)
    ap.add_argument("--prompt-max", type=int, default=4096)
    ap.add_argument("--block-size", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--mlp", type=int, default=14336)
    ap.add_argument("--vocab", type=int, default=32000,
                    help="the embedding and lm_head's rows: Llama-2's 32000 by default, as every recorded run used (Llama-3's is "
                         "128256; the attention shape is Llama-3-8B's either way)")
    ap.add_argument("--no-graph", action="store_true", help="run the steps eagerly (always so on the CPU)")
    ap.add_argument("--lengths", default="staged", choices=["staged", "device"],
                    help="how the graph's attention learns each step's lengths: staged (the host walks the plan at them and "
                         "stages that work before each replay: faster) or device (the kernels read cache_seqlens on the GPU)")
    ap.add_argument("--strategy", default="auto", choices=["auto", "stream-k", "fixed-split", "no-split"],
                    help="leanattn's plan: auto (the default) weighs the three on the device file's kernel model for the kind of "
                         "step --lengths runs")
    ap.add_argument("--tiny", action="store_true", help="a small model and run (for CPUs and CI)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.tiny:
        a.layers, a.batch, a.steps, a.prompt_min, a.prompt_max = 2, 3, 6, 20, 90
        a.hidden, a.heads, a.kv_heads, a.mlp, a.vocab = 256, 8, 2, 512, 1000
    if a.device == "cpu" and a.dtype != "fp32":
        a.dtype = "fp32"  # CPU matmuls in bf16 are slow and not what this is about
    return a


class Model:
    """Random weights, Llama-style shapes; one decode step over caches that attention reads."""

    def __init__(self, a, dtype, device, generator):
        self.a, self.head_dim = a, a.hidden // a.heads

        def weight(*shape):
            return (torch.randn(*shape, generator=generator) / math.sqrt(shape[-1])).to(dtype).to(device)

        d = self.head_dim
        self.embed = weight(a.vocab, a.hidden)
        self.lm_head = weight(a.vocab, a.hidden)
        self.layers = [dict(qkv=weight((a.heads + 2 * a.kv_heads) * d, a.hidden), o=weight(a.hidden, a.heads * d),
                            gate=weight(a.mlp, a.hidden), up=weight(a.mlp, a.hidden), down=weight(a.hidden, a.mlp)) for _ in range(a.layers)]

    def step(self, tokens, attend):
        """tokens (B,) → next tokens (B,), and the last hidden state. attend(layer, q, k, v) writes k, v into the
        layer's cache and returns attention (B, 1, Hq, d)."""
        a, d = self.a, self.head_dim
        x = self.embed[tokens]  # (B, hidden)
        for i, w in enumerate(self.layers):
            h = F.rms_norm(x, (a.hidden,)) if hasattr(F, "rms_norm") else x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype)
            q, k, v = (h @ w["qkv"].T).split([a.heads * d, a.kv_heads * d, a.kv_heads * d], dim=-1)
            att = attend(i, q.view(-1, 1, a.heads, d), k.view(-1, a.kv_heads, d), v.view(-1, a.kv_heads, d))
            x = x + att.reshape(-1, a.heads * d) @ w["o"].T
            h = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype)
            x = x + (F.silu(h @ w["gate"].T) * (h @ w["up"].T)) @ w["down"].T
        return (x @ self.lm_head.T).argmax(-1), x


class LeanattnCaches:
    """Paged K/V caches (num_blocks, block_size, Hkv, d) per layer, one block table, lengths on the device (and, to
    stage each step's work before a graph's replay, on the host)."""

    def __init__(self, a, dtype, device, prompts, capacity, generator, q_like):
        bs, d = a.block_size, a.hidden // a.heads
        per = (capacity + bs - 1) // bs
        blocks = a.batch * per
        self.block_size = bs
        self.table = torch.randperm(blocks, generator=generator).reshape(a.batch, per).to(torch.int32).to(device)
        self.k = [torch.empty(blocks, bs, a.kv_heads, d, dtype=dtype, device=device) for _ in range(a.layers)]
        self.v = [torch.empty_like(k) for k in self.k]
        self.lengths = prompts.to(torch.int32).to(device)
        # A staged step walks the plan on the host, as a host-lengths step does: auto weighs the plans for that kind.
        self.plan = leanattn.DecodePlan(q_like, self.k[0], self.v[0], self.table, strategy=a.strategy,
                                        lengths="device" if a.lengths == "device" else "host")
        self.out = torch.empty_like(q_like)
        self.host_lengths = prompts.to(torch.int32).clone()
        self.staged = False  # run() sets it where a graph replays the steps and --lengths is staged

    def attend(self, layer, q, k, v):
        pos = self.lengths.long()  # this token's position = the length before it is added
        block = self.table.long().gather(1, (pos // self.block_size)[:, None])[:, 0]
        self.k[layer][block, pos % self.block_size] = k
        self.v[layer][block, pos % self.block_size] = v
        lengths = self.lengths + 1
        self.plan.run(q, self.k[layer], self.v[layer], lengths, self.table, out=self.out, check_lengths=False, staged=self.staged)
        return self.out

    def advance(self):
        self.lengths += 1

    def before_step(self):
        """Outside the graph, before a step: stage its attention's work (this step attends over one more token)."""
        if self.staged:
            self.plan.stage(self.out, self.k[0], self.v[0], self.lengths + 1, self.table, host_seqlens=self.host_lengths + 1)

    def after_step(self):
        self.host_lengths += 1


def sdpa(q, k, v, mask):
    """PyTorch's scaled_dot_product_attention: with enable_gqa where it exists (2.5 and later: K and V are read
    once per KV head), else on K and V repeated per query head; its math on older PyTorch (Debian's CPU build)."""
    group = q.shape[1] // k.shape[1]
    if hasattr(F, "scaled_dot_product_attention"):
        try:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=group > 1)
        except TypeError:  # no enable_gqa
            pass
    if group > 1:
        k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ v


class DenseCaches:
    """SDPA's way: a dense (B, Hkv, capacity, d) cache per layer and a boolean mask of the valid tokens."""

    def __init__(self, a, dtype, device, prompts, capacity):
        d = a.hidden // a.heads
        # Zeros past each request's tokens, not torch.empty's leftovers: SDPA multiplies a masked position's V by its
        # weight 0, and 0 times a NaN or Inf left in memory is NaN (seen on torch 2.11's CPU kernel).
        self.k = [torch.zeros(a.batch, a.kv_heads, capacity, d, dtype=dtype, device=device) for _ in range(a.layers)]
        self.v = [torch.zeros_like(k) for k in self.k]
        self.lengths = prompts.long().to(device)
        self.positions = torch.arange(capacity, device=device)

    def attend(self, layer, q, k, v):
        rows = torch.arange(q.shape[0], device=q.device)
        self.k[layer][rows, :, self.lengths] = k
        self.v[layer][rows, :, self.lengths] = v
        mask = (self.positions[None, :] <= self.lengths[:, None])[:, None, None, :]  # (B, 1, 1, capacity)
        return sdpa(q.transpose(1, 2), self.k[layer], self.v[layer], mask).transpose(1, 2)  # (B, 1, Hq, d)

    def advance(self):
        self.lengths += 1

    def before_step(self):
        pass

    def after_step(self):
        pass


def copy_prompt(lean, dense, prompts, generator):
    """The same random prompt K/V in both caches."""
    for layer in range(len(lean.k)):
        for b, n in enumerate(prompts.tolist()):
            for which, (paged, full) in enumerate(((lean.k[layer], dense.k[layer]), (lean.v[layer], dense.v[layer]))):
                values = torch.randn(n, full.shape[1], full.shape[3], generator=generator).to(full.dtype).to(full.device)
                full[b, :, :n] = values.transpose(0, 1)
                blocks = lean.table[b, : (n + lean.block_size - 1) // lean.block_size].long()
                padded = torch.zeros(len(blocks) * lean.block_size, *values.shape[1:], dtype=values.dtype, device=values.device)
                padded[:n] = values
                paged[blocks] = padded.view(len(blocks), lean.block_size, *values.shape[1:])


def run(name, model, caches, tokens, a, device):
    """Steps the model `a.steps` times (a CUDA graph of one step on the GPU) and returns tokens/s and the last state."""
    state = {"tokens": tokens.clone()}

    def one_step():
        nxt, hidden = model.step(state["tokens"], caches.attend)
        state["tokens"].copy_(nxt)
        caches.advance()
        return hidden

    use_graph = device.type == "cuda" and not a.no_graph
    if use_graph:
        caches.staged = hasattr(caches, "staged") and a.lengths == "staged"
        saved = caches.lengths.clone()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            caches.before_step()
            one_step()  # warm-up (allocations, autotuning) outside the capture
        torch.cuda.current_stream().wait_stream(stream)
        caches.lengths.copy_(saved)
        state["tokens"].copy_(tokens)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            hidden = one_step()
        caches.lengths.copy_(saved)  # the capture ran nothing: back to the prompt lengths
        state["tokens"].copy_(tokens)
        step = graph.replay
    else:
        step = one_step
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(a.steps):
        caches.before_step()
        out = step()
        caches.after_step()
        hidden = hidden if use_graph else out
    if device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    rate = a.batch * a.steps / seconds
    how = (", CUDA graph" + (", each step's work staged" if getattr(caches, "staged", False) else "")) if use_graph else ""
    print(f"{name:9} {rate:12.1f} tokens/s   ({a.steps} steps x batch {a.batch} in {seconds * 1e3:.1f} ms{how})")
    return rate, hidden.float().clone(), state["tokens"].clone()


def main():
    a = parse()
    device = torch.device(a.device)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[a.dtype]
    generator = torch.Generator().manual_seed(a.seed)
    prompts = torch.randint(a.prompt_min, a.prompt_max + 1, (a.batch,), generator=generator)
    capacity = a.prompt_max + a.steps + 2
    model = Model(a, dtype, device, generator)
    q_like = torch.empty(a.batch, 1, a.heads, a.hidden // a.heads, dtype=dtype, device=device)
    lean = LeanattnCaches(a, dtype, device, prompts, capacity, generator, q_like)
    dense = DenseCaches(a, dtype, device, prompts, capacity)
    copy_prompt(lean, dense, prompts, generator)
    tokens = torch.randint(0, a.vocab, (a.batch,), generator=generator).to(device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"{name}, {a.dtype}: {a.layers} layers, hidden {a.hidden}, {a.heads}/{a.kv_heads} heads of {a.hidden // a.heads}, "
          f"batch {a.batch}, prompts {a.prompt_min}-{a.prompt_max} tokens (ragged), paged blocks of {a.block_size}")
    plan = lean.plan.to_dict()
    print(f"leanattn's plan ({a.strategy}): {plan['strategy']} on {plan['grid']} CTAs")
    gap = first_step_gap(model, lean, dense, tokens)
    print(f"first step, all layers: hidden states of leanattn and sdpa differ by {gap:.2e} (rel. L2)")
    lean_rate, lean_hidden, lean_tokens = run("leanattn", model, lean, tokens, a, device)
    sdpa_rate, sdpa_hidden, sdpa_tokens = run("sdpa", model, dense, tokens, a, device)
    final_gap = ((lean_hidden - sdpa_hidden).norm() / sdpa_hidden.norm()).item()
    same = (lean_tokens == sdpa_tokens).float().mean().item()
    print(f"leanattn / sdpa: {lean_rate / sdpa_rate:.2f}x; after {a.steps} steps {same:.0%} of the tokens agree and the hidden states "
          f"differ by {final_gap:.2e}: each next token is an argmax, so one rounding-level difference that flips a token sends "
          f"that request down another path (random weights give near-ties)")
    return 0 if math.isfinite(gap) and gap < 0.05 else 1


def first_step_gap(model, lean, dense, tokens):
    """One eager step of the model from the same state with each attention: the rel. L2 gap of the last hidden
    states. attend() writes this step's K and V at the current lengths without advancing them, so the timed runs
    start from the same state (they write the same values there again)."""
    _, with_lean = model.step(tokens, lean.attend)
    _, with_sdpa = model.step(tokens, dense.attend)
    return ((with_lean.float() - with_sdpa.float()).norm() / with_sdpa.float().norm()).item()


if __name__ == "__main__":
    sys.exit(main())

"""leanattn.decode and DecodePlan: decode attention on PyTorch tensors, with flash_attn_with_kvcache's shapes.

    q             (batch, q_len, q_heads, head_dim)
    k_cache       (batch, N, kv_heads, head_dim), or with block_table a paged cache
                  (num_blocks, block_size, kv_heads, head_dim); v_cache alike (same shape and strides, but on
                  dimensions of size 1)
    cache_seqlens (batch,) int32: each request's tokens, the q_len new ones included
    block_table   (batch, max_blocks) int32, or None
    returns       out (batch, q_len, q_heads, head_dim) in q's dtype [, softmax_lse (batch, q_heads, q_len) float32]

CUDA tensors run the fused kernel on torch's current stream; CPU tensors run the CPU executor. Query token i of
q_len sees the first seqlen - q_len + i + 1 tokens (causal among the new tokens); a request of length 0 (a padded
batch's empty slot) gets out 0 and lse -inf.
"""
import collections
import ctypes
import math
import numbers
import operator
import threading

import torch

from . import _library as L

_DTYPES = {torch.float32: L.FP32, torch.float16: L.FP16, torch.bfloat16: L.BF16}
_CUDA_DTYPES = (torch.float16, torch.bfloat16)


# Bumps a tensor's version counter, as an in-place op of torch's own does, so that autograd refuses a backward pass that
# saved it before the library wrote it through its pointer. torch.autograd.graph.increment_version where torch has it;
# else an in-place op on an empty slice of it, which shares its counter and writes nothing.
_increment_version = getattr(getattr(torch.autograd, "graph", None), "increment_version", None)


def _mark_written(t):
    if t.is_inference():
        return  # no counter: autograd never saves an inference tensor
    if _increment_version is not None:
        _increment_version(t)
    else:
        t[:0].zero_()


def _require_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")


def _require(condition, error, message):
    if not condition:
        raise error(message)


def require_forward_only(**tensors):
    """ValueError where autograd would record the call: leanattn computes attention forward only, and an output that
    silently dropped its inputs' grad (or one written under autograd's feet through out=) would train wrong."""
    if not torch.is_grad_enabled():
        return
    for name, t in tensors.items():
        _require(t is None or not t.requires_grad, ValueError,
                 f"{name} requires grad, but leanattn computes attention forward only (no backward): call it under "
                 f"torch.no_grad() or torch.inference_mode(), or pass {name}.detach()")


def _require_no_empty_dim(name, t, dims):
    for size, dim in zip(t.shape, dims):
        _require(size > 0, ValueError, f"{name}: its {dim} dimension is 0 (shape {tuple(t.shape)})")


def _check_run(status):
    """L.check for a step, naming the LSE as run() takes it (lse=): the library names it softmax_lse, as
    flash_attn_with_kvcache returns it."""
    try:
        L.check(status)
    except ValueError as e:
        message = str(e).replace("softmax_lse", "lse")
        if "is in use by another run" in message:  # the plan's own workspace: a Python caller never passed one
            message += " (a DecodePlan runs one step at a time: give each thread a DecodePlan of its own, or leanattn.decode)"
        raise ValueError(message) from None


def _scale_for_c(softmax_scale):
    """softmax_scale as the C ABI takes it, 0 for the default 1/sqrt(head_dim) (None)."""
    if softmax_scale is None:
        return 0.0
    # float() would take "0.1" and True; a tensor's value would need a synchronisation on the GPU.
    _require(isinstance(softmax_scale, numbers.Real) and not isinstance(softmax_scale, bool), TypeError,
             f"softmax_scale must be a number (float), or None for 1/sqrt(head_dim); got {type(softmax_scale).__name__}"
             + (" (a tensor's value goes in as softmax_scale=t.item())" if isinstance(softmax_scale, torch.Tensor) else ""))
    scale = float(softmax_scale)
    _require(math.isfinite(scale) and scale > 0.0, ValueError,
             f"softmax_scale must be a finite positive number, or None for 1/sqrt(head_dim); got {softmax_scale}")
    # The C ABI takes a float32, where 0 means the default: a scale that rounds to 0 or to infinity there is refused.
    single = ctypes.c_float(scale).value
    _require(math.isfinite(single) and single > 0.0, ValueError,
             f"softmax_scale {softmax_scale} is {single} as the float32 the kernels take; give one within float32's range")
    return single


# What a plan is made for, beside the cache's layout, and the argument each is read from.
_PLANNED = (("q", "device"), ("q", "dtype"), ("q", "batch"), ("q", "q_len"), ("q", "q_heads"), ("q", "head_dim"),
            ("k_cache", "kv_heads"), ("the cache", "capacity"))


class _Shape:
    """What a plan is made for, read from the tensors and checked against each other."""

    def __init__(self, q, k_cache, v_cache, block_table):
        for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache)):
            _require_tensor(name, t)
            _require(t.dim() == 4, ValueError, f"{name} must have 4 dimensions, got shape {tuple(t.shape)}")
            _require(t.device == q.device, ValueError, f"{name} is on {t.device} but q is on {q.device}")
        _require(q.dtype in _DTYPES, TypeError, f"q: dtype {q.dtype} is not float16, bfloat16 or float32")
        if q.is_cuda:
            _require(q.dtype in _CUDA_DTYPES, TypeError, f"q: the CUDA kernels take float16 or bfloat16, got {q.dtype}")
        elif q.device.type != "cpu":
            raise ValueError(f"q is on {q.device}: leanattn runs on CPU and CUDA tensors")
        for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
            _require(t.dtype == q.dtype, TypeError, f"{name} has dtype {t.dtype} but q has {q.dtype}")
        _require(k_cache.shape == v_cache.shape, ValueError, f"v_cache has shape {tuple(v_cache.shape)} but k_cache {tuple(k_cache.shape)}")
        # One set of strides addresses both caches; a dimension of size 1 is never stepped, so its stride may differ.
        _require(all(n == 1 or a == b for n, a, b in zip(k_cache.shape, k_cache.stride(), v_cache.stride())), ValueError,
                 f"v_cache has strides {v_cache.stride()} but k_cache {k_cache.stride()} (shape {tuple(k_cache.shape)})")
        for name, t in (("q", q), ("k_cache", k_cache)):
            _require(t.stride(3) == 1, ValueError, f"{name}: the head dimension must be contiguous (stride 1), got strides {t.stride()}")
        self.paged = block_table is not None
        _require_no_empty_dim("q", q, ("batch", "q_len", "heads", "head_dim"))
        _require_no_empty_dim("k_cache", k_cache, (("num_blocks", "block_size") if self.paged else ("batch", "capacity")) + ("kv_heads", "head_dim"))
        self.device, self.dtype = q.device, q.dtype
        self.batch, self.q_len, self.q_heads, self.head_dim = q.shape
        self.kv_heads = k_cache.shape[2]
        _require(k_cache.shape[3] == self.head_dim, ValueError, f"k_cache has head_dim {k_cache.shape[3]} but q has {self.head_dim}")
        # A padded (B, Hkv, N, d) cache passed as it is reads N as the KV heads: say how it goes in.
        hint = (f" (k_cache is read as (batch, capacity, kv_heads, head_dim); a padded (batch, kv_heads, capacity, "
                f"head_dim) cache goes in as k.transpose(1, 2))") if not self.paged else ""
        _require(self.q_heads % self.kv_heads == 0, ValueError,
                 f"q has {self.q_heads} heads, not a multiple of k_cache's {self.kv_heads} kv heads{hint}")
        if self.paged:
            _require_tensor("block_table", block_table)
            _require(block_table.dtype == torch.int32, TypeError, f"block_table must be int32, got {block_table.dtype}")
            _require(block_table.dim() == 2 and block_table.shape[0] == self.batch, ValueError,
                     f"block_table must have shape (batch={self.batch}, max_blocks), got {tuple(block_table.shape)}")
            _require(block_table.device == q.device, ValueError, f"block_table is on {block_table.device} but q is on {q.device}")
            _require(block_table.stride(1) == 1, ValueError, "block_table: its rows must be contiguous")
            _require_no_empty_dim("block_table", block_table, ("batch", "max_blocks"))
            self.block_size = k_cache.shape[1]
            _require(1 <= self.block_size <= 256, ValueError, f"k_cache: block size {self.block_size} is not in 1..256")
            self.num_blocks = k_cache.shape[0]
            self.capacity = block_table.shape[1] * self.block_size
        else:
            _require(k_cache.shape[0] == self.batch, ValueError, f"k_cache holds {k_cache.shape[0]} requests but q has {self.batch}")
            self.capacity = k_cache.shape[1]
        _require(self.capacity >= self.q_len, ValueError, f"the cache holds {self.capacity} tokens per request, fewer than q_len {self.q_len}")

    def key(self):
        return (self.paged,) + tuple(getattr(self, field) for _, field in _PLANNED)

    def require_planned(self, planned):
        """ValueError naming what these tensors have that differs from `planned`, the shape a plan was made for."""
        if self.paged != planned.paged:
            layout = {True: "a paged cache (with a block_table)", False: "an unpaged cache (no block_table)"}
            raise ValueError(f"k_cache is {layout[self.paged]} but this plan was made for {layout[planned.paged]}")
        for source, field in _PLANNED:
            value, planned_value = getattr(self, field), getattr(planned, field)
            _require(value == planned_value, ValueError, f"{source} has {field} {value} but this plan was made for {field} {planned_value}")


def _capturing(device):
    """Whether a CUDA graph is being captured on torch's current stream of `device` (a CUDA device)."""
    if device.index is None or device.index == torch.cuda.current_device():
        return torch.cuda.is_current_stream_capturing()
    with torch.cuda.device(device):
        return torch.cuda.is_current_stream_capturing()


def _step_stream(q):
    """torch's current stream on q's GPU, where a step is enqueued. Refused where a graph is being captured on another
    GPU's stream but not on this one: the step would run at once instead of in the graph (torch.cuda.graph's default
    capture stream is made once per process, on the GPU current at its first use)."""
    stream = torch.cuda.current_stream(q.device)
    if q.device.index != torch.cuda.current_device() and torch.cuda.is_current_stream_capturing() and not _capturing(q.device):
        raise ValueError(f"a CUDA graph is being captured on a stream of cuda:{torch.cuda.current_device()}, but q is on {q.device}, whose "
                         f"current stream is not capturing: capture on a stream of {q.device} (torch.cuda.graph(g, "
                         f"stream=torch.cuda.Stream({q.device!r})))")
    return stream.cuda_stream


def _check_lengths(shape, cache_seqlens, block_table):
    """Every length 0 (an empty slot: its rows get out 0 and lse -inf) or in [q_len, capacity], and every block id a
    length reaches inside the cache: ValueError otherwise.
    On the GPU this reads one flag back (a synchronisation), so it is skipped while a CUDA graph is captured (None);
    the lengths come back with it, as a contiguous int32 CPU tensor."""
    if cache_seqlens.is_cuda and _capturing(cache_seqlens.device):
        return None
    lengths = cache_seqlens.to(torch.int64)
    bad_length = ((lengths < shape.q_len) & (lengths != 0)) | (lengths > shape.capacity)
    flags = [bad_length.any()]
    if shape.paged:
        reached = torch.arange(block_table.shape[1], device=block_table.device)[None, :] * shape.block_size < lengths[:, None]
        ids = block_table.to(torch.int64)
        flags.append((reached & ((ids < 0) | (ids >= shape.num_blocks))).any())
    back = torch.cat([torch.stack(flags).to(torch.int64), lengths]).cpu()  # one copy: the verdicts and the lengths
    found, host_lengths = back[:len(flags)], back[len(flags):].to(torch.int32).contiguous()
    if found[0]:
        b = int(bad_length.nonzero()[0, 0])
        n = int(lengths[b])
        # A padded (batch, kv_heads, capacity, head_dim) cache passed as it is reads its heads as the capacity: where the
        # length would fit the dimension after them, say how it goes in.
        hint = (f" (k_cache is read as (batch, capacity, kv_heads, head_dim); a (batch, kv_heads, capacity, head_dim) cache "
                f"goes in as k.transpose(1, 2))") if not shape.paged and shape.capacity < n <= shape.kv_heads else ""
        raise ValueError(f"cache_seqlens: request {b} has {n} tokens; each needs between q_len ({shape.q_len}) "
                         f"and what its cache holds ({shape.capacity}), or 0 (an empty slot){hint}")
    if shape.paged and found[1]:
        b, i = (int(x) for x in (reached & ((ids < 0) | (ids >= shape.num_blocks))).nonzero()[0])
        raise ValueError(f"block_table: entry [{b}, {i}] = {int(ids[b, i])} is not a block of the cache (0 to {shape.num_blocks - 1}); "
                         f"request {b}'s length reaches it")
    return host_lengths


def _length(i, n):
    """host_seqlens[i] as an int within int32: an int, numpy's or a 0-dim integer tensor (operator.index takes them), not a
    float or a bool."""
    try:
        if isinstance(n, bool):
            raise TypeError
        value = operator.index(n)
    except TypeError:
        raise TypeError(f"host_seqlens[{i}] must be an int, got {type(n).__name__} {n!r}") from None
    _require(-2**31 <= value < 2**31, ValueError, f"host_seqlens[{i}] = {value} is beyond int32")
    return value


def _host_lengths(host_seqlens, batch):
    """host_seqlens as a contiguous int32 CPU tensor of shape (batch,): from an int32 CPU tensor, as cache_seqlens, or a
    sequence of ints within int32 (a conversion would wrap 2**32 + 5 to 5, or cut 100.9 to 100, without a word)."""
    if isinstance(host_seqlens, torch.Tensor):
        lengths = host_seqlens
        _require(lengths.dtype == torch.int32, TypeError, f"host_seqlens must be int32, got {lengths.dtype} (host_seqlens.to(torch.int32))")
    else:
        values = [_length(i, n) for i, n in enumerate(host_seqlens)]
        lengths = torch.tensor(values, dtype=torch.int32)
    _require(lengths.device.type == "cpu", ValueError, f"host_seqlens must be in host memory, got a tensor on {lengths.device}")
    _require(tuple(lengths.shape) == (batch,), ValueError, f"host_seqlens must have shape ({batch},), got {tuple(lengths.shape)}")
    return lengths.to(torch.int32).contiguous()


class DecodePlan:
    """A plan and its workspace, made once for the shapes of q and the cache (as leanattn.decode takes them); run() at
    every decode step.

    run() allocates nothing when given `out` (and `lse`) and check_lengths=False, and enqueues its kernels on
    torch's current stream: capture it in a CUDA graph, then update cache_seqlens (and block_table) in place
    between replays. The plan is made for the cache's capacity; each run derives its per-request work from
    the live lengths on the device.

    A host-lengths step is faster on the GPU (~3 us less per step on an H100: no prologue kernel, README): when the
    lengths are known on the host, from `host_seqlens` (a CPU int32 tensor or a sequence, equal to
    cache_seqlens) or read back by check_lengths' synchronisation, the host walks the plan at those lengths and
    hands every CTA its work in the launch. A CUDA graph of a host-lengths step replays only with the lengths it was
    captured with; run(check_lengths=False) without host_seqlens is the one to capture for growing lengths.

    A staged step has both: capture run(..., check_lengths=False, staged=True) in the graph, and before every replay,
    outside the capture, call stage(..., host_seqlens=...) with that step's lengths: the host's walk is copied into
    the workspace, where the captured kernels read it (on an H100 about a host-lengths step's time, 2-4 us less than
    the captured run() that reads the lengths on the device; README).

    strategy: "auto" (the default) weighs stream-k, fixed-split and no-split plans (and their grids and split counts)
    on the device file's kernel model, each by its mean predicted time at the capacity and at two draws of ragged live
    lengths below it, and takes the fastest; "stream-k" (the aligned rule), "fixed-split" or "no-split" plan that
    strategy only. On an H100, with ragged live lengths, auto ran 1.001x the best of the three per shape (geometric
    mean over 60 model shapes) where stream-k ran 1.14x; README "Python".

    tile_rows: query rows (query heads x new tokens of one KV head) one output tile holds at most; a KV head
    with more is cut into row blocks that each read its K and V. 0 is 16, one tensor-core tile: the best over
    the shapes measured; up to 128 (64 at head_dim 256) on the GPU, where larger tiles pay once the HBM is
    saturated (large batches of large groups). With strategy="auto" and tile_rows 0, KV heads of 9-16 rows may
    be cut into two 8-row tiles unless the kernel model predicts that more than 5% slower (it over-predicts such
    plans; Llama-3.1-405B at one request of 16k tokens on an H100: 37.4 -> 33.1 us), and KV heads of more than 16
    rows (speculative decoding with GQA) planned on tiles of 32-128 rows where predicted 10% faster (head dims
    96-256; Qwen2.5-32B at one request of 16k tokens, q_len 8, on an H100: 69.0 -> 44.2 us).

    grid: stream-k's CTAs; 0 lets stream_k_rule choose (the aligned rule's grid by default).

    tile: the LeanTile, stream-k's unit of work, in tokens (a multiple of 16); 0 is 256 at head_dim 64 or less, else
    128 (the paper's). A CTA's share of the LeanTiles is whole LeanTiles, so few long outputs on many CTAs balance
    better on smaller ones.

    device: the device file (a name of `leanattn devices` or a .json path) whose timing keys the planner's cost model
    reads; None: on CUDA tensors the file whose "cuda_names" match the GPU's name, else h100-sxm's (as the CLI's `cuda`
    commands); on CPU tensors h100-sxm's for strategy="auto", else the built-in figures. The SMs a CUDA plan fills are
    always the GPU's own; a CPU plan with strategy="auto" is made on the device file's SMs at its kernel model's CTAs
    per SM, where its candidates were weighed.

    lengths: with strategy="auto", the kind of step this plan will mostly run, whose kernel model weighs the plans:
    "host" (run() with check_lengths or host_seqlens, the default) or "device" (run(check_lengths=False) without
    host_seqlens: the step to capture in a CUDA graph). Either kind of step runs any plan.

    One plan, with its one workspace, runs one step at a time: threads or CUDA streams that run steps concurrently
    need a plan each (leanattn.decode keeps one per thread and stream)."""

    def __init__(self, q, k_cache, v_cache, block_table=None, *, strategy="auto", splits=0, grid=0, device=None, stream_k_rule=None,
                 tile_rows=0, tile=0, lengths="host"):
        self.shape = _Shape(q, k_cache, v_cache, block_table)
        s = self.shape
        _require(isinstance(strategy, str), TypeError,
                 f"strategy must be \"auto\", \"stream-k\", \"fixed-split\" or \"no-split\", got {strategy!r}")
        self.device = q.device
        self.dtype = q.dtype
        problem, self._ctx = L.make_problem(s.batch, s.q_heads, s.kv_heads, s.head_dim, s.q_len, [s.capacity] * L.check_batch(s.batch),
                                            tile=tile, tile_rows=tile_rows)
        cuda_device = (q.device.index if q.device.index is not None else torch.cuda.current_device()) if q.is_cuda else 0
        _require(lengths in ("host", "device"), ValueError, f"lengths must be \"host\" or \"device\", got {lengths!r}")
        options = L.make_options(strategy, splits, grid, device, cuda_device, stream_k_rule, lengths=lengths)
        kind = L.DEVICE_CUDA if q.is_cuda else L.DEVICE_CPU
        self._plan = L.PlanP()
        L.check(L.lib.leanattn_plan_create(ctypes.byref(problem), _DTYPES[q.dtype], kind, ctypes.byref(options), ctypes.byref(self._plan)))
        size = ctypes.c_size_t()
        L.check(L.lib.leanattn_plan_workspace_bytes(self._plan, ctypes.byref(size)))
        self.workspace = torch.zeros(max(size.value, 1), dtype=torch.uint8, device=q.device)  # zeroed once: host-lengths steps need it

    def __copy__(self):
        raise TypeError("a DecodePlan owns a plan of the library and its workspace, which a copy would share and outlive: make "
                        "another DecodePlan with the same arguments")

    def __deepcopy__(self, memo):
        self.__copy__()

    def __reduce__(self):
        raise TypeError("a DecodePlan cannot be pickled (it holds a plan of the library): make it again where it is needed")

    def __del__(self):
        plan = getattr(self, "_plan", None)
        if plan:
            L.lib.leanattn_plan_destroy(plan)
            self._plan = None

    def to_dict(self):
        """The plan as `leanattn schedule --format json` prints it (for the cache's capacity). With strategy="auto", the key
        "auto" lists every plan weighed ("candidates": strategy, grid, splits, tile_rows, predicted_us) under "kernel", the
        model of the kind of step in `lengths`, each predicted as the mean at the capacity and at two draws of ragged
        live lengths ("planned_for": "capacity")."""
        import json
        return json.loads(L.take_string(L.lib.leanattn_plan_json, self._plan))

    def run(self, q, k_cache, v_cache, cache_seqlens, block_table=None, softmax_scale=None, *, out=None, lse=None, return_lse=False,
            check_lengths=True, host_seqlens=None, staged=False):
        """One decode step. staged=True runs the work stage() last put in the workspace (CUDA: the step to capture in a
        graph that replays while the lengths change; stage() before every replay); on the CPU it runs as run() does.
        out may be q itself (in place); out or lse overlapping q otherwise, the cache or each other is refused."""
        shape = self._check_step(q, k_cache, v_cache, cache_seqlens, block_table)
        for name, t in (("out", out), ("lse", lse)):
            _require(t is None or isinstance(t, torch.Tensor), TypeError, f"{name} must be a torch.Tensor or None, got {type(t).__name__}")
        require_forward_only(q=q, k_cache=k_cache, v_cache=v_cache, out=out, lse=lse)
        _require(not (staged and host_seqlens is not None), ValueError, "a staged step takes its lengths from stage(host_seqlens=...), not run()")
        scale = _scale_for_c(softmax_scale)
        callers = [t for t in (out, lse) if t is not None]  # written through their pointers: autograd is told (_mark_written)
        if out is None:
            out = torch.empty_like(q, memory_format=torch.contiguous_format)
        for what in ("shape", "dtype", "device"):
            _require(getattr(out, what) == getattr(q, what), ValueError,
                     f"out must have q's {what}: out has {getattr(out, what)}, q {getattr(q, what)}")
        _require(out.stride(3) == 1, ValueError, "out: the head dimension must be contiguous")
        want_lse = return_lse or lse is not None
        if want_lse and lse is None:
            lse = torch.empty((shape.batch, shape.q_heads, shape.q_len), dtype=torch.float32, device=q.device)
        if lse is not None:
            _require(tuple(lse.shape) == (shape.batch, shape.q_heads, shape.q_len) and lse.dtype == torch.float32 and lse.device == q.device,
                     ValueError, f"lse must be float32 of shape (batch, q_heads, q_len) = ({shape.batch}, {shape.q_heads}, {shape.q_len}) on "
                     f"{q.device}; got {lse.dtype} of shape {tuple(lse.shape)} on {lse.device}")
        host_lengths = _host_lengths(host_seqlens, shape.batch) if host_seqlens is not None else None
        if check_lengths:
            read_back = _check_lengths(shape, cache_seqlens, block_table)
            if host_lengths is None and q.is_cuda and not staged:
                host_lengths = read_back
            elif host_lengths is not None and read_back is not None:
                _require(torch.equal(host_lengths, read_back), ValueError, "host_seqlens differ from cache_seqlens")
        tensors = self._tensors(shape, q, k_cache, v_cache, cache_seqlens, block_table, out, lse, scale)
        stream = _step_stream(q) if q.is_cuda else None
        if staged:
            _check_run(L.lib.leanattn_run_staged(self._plan, ctypes.byref(tensors), self.workspace.data_ptr(), self.workspace.numel(), stream, 0))
        elif host_lengths is not None:  # on the CPU too: the library compares host_seqlens with cache_seqlens there
            _check_run(L.lib.leanattn_run_host_lengths(self._plan, ctypes.byref(tensors), host_lengths.data_ptr(), None, self.workspace.data_ptr(),
                                                  self.workspace.numel(), stream, 0))
        else:
            _check_run(L.lib.leanattn_run(self._plan, ctypes.byref(tensors), self.workspace.data_ptr(), self.workspace.numel(), stream, 0))
        for t in callers:
            _mark_written(t)
        return (out, lse) if want_lse else out

    def stage(self, q, k_cache, v_cache, cache_seqlens, block_table=None, *, host_seqlens):
        """Puts one step's work, walked on the host at host_seqlens (a CPU int32 tensor or a sequence, equal to
        cache_seqlens), in the workspace, on torch's current stream, for the next run(..., staged=True): call it before
        every replay of a graph that captured run(staged=True), outside the capture (staging inside one is refused: a
        copy in the graph would cost ~9 us a replay). Takes run()'s tensors, which it checks but does not read. On the
        CPU it does nothing; nor for a plan whose steps may need more than 512 CTAs or segments, which a staged run
        runs as run() does (its lengths read on the device)."""
        shape = self._check_step(q, k_cache, v_cache, cache_seqlens, block_table)
        host_lengths = _host_lengths(host_seqlens, shape.batch)
        tensors = self._tensors(shape, q, k_cache, v_cache, cache_seqlens, block_table, q, None, 0.0)  # q stands for out: staging neither checks nor writes it
        stream = torch.cuda.current_stream(q.device).cuda_stream if q.is_cuda else None
        L.check(L.lib.leanattn_stage_step(self._plan, ctypes.byref(tensors), host_lengths.data_ptr(), None, self.workspace.data_ptr(),
                                          self.workspace.numel(), stream))

    def _check_step(self, q, k_cache, v_cache, cache_seqlens, block_table):
        shape = _Shape(q, k_cache, v_cache, block_table)
        shape.require_planned(self.shape)
        _require_tensor("cache_seqlens", cache_seqlens)
        _require(cache_seqlens.dtype == torch.int32, TypeError, f"cache_seqlens must be int32, got {cache_seqlens.dtype} (cache_seqlens.to(torch.int32))")
        _require(tuple(cache_seqlens.shape) == (shape.batch,), ValueError,
                 f"cache_seqlens must have shape ({shape.batch},), got {tuple(cache_seqlens.shape)}")
        _require(cache_seqlens.device == q.device, ValueError, f"cache_seqlens is on {cache_seqlens.device} but q is on {q.device}")
        _require(cache_seqlens.is_contiguous(), ValueError, "cache_seqlens must be contiguous")
        return shape

    @staticmethod
    def _tensors(shape, q, k_cache, v_cache, cache_seqlens, block_table, out, lse, scale):
        tensors = L.Tensors()
        tensors.q = L.HeadTensor(q.data_ptr(), q.stride(0), q.stride(1), q.stride(2))
        tensors.out = L.HeadTensor(out.data_ptr(), out.stride(0), out.stride(1), out.stride(2))
        if lse is not None:
            tensors.lse = L.LseTensor(lse.data_ptr(), lse.stride(0), lse.stride(1), lse.stride(2))
        kv = tensors.kv
        kv.k, kv.v = k_cache.data_ptr(), v_cache.data_ptr()
        kv.stride_request, kv.stride_token, kv.stride_head = k_cache.stride(0), k_cache.stride(1), k_cache.stride(2)
        kv.capacity = shape.capacity
        if shape.paged:
            kv.layout = L.KV_PAGED
            kv.block_table, kv.block_table_stride = block_table.data_ptr(), block_table.stride(0)
            kv.block_size, kv.num_blocks = shape.block_size, shape.num_blocks
        else:
            kv.layout = L.KV_STRIDED
        tensors.seqlens = cache_seqlens.data_ptr()
        tensors.softmax_scale = scale
        return tensors


# decode()'s plans, the least recently used first. A plan's workspace serves one step at a time, so each thread and
# CUDA stream has its own. 32: a serving loop's shapes (a few batch sizes and cache widths) on a few threads, while
# the workspaces kept stay bounded when the shapes keep changing.
_MAX_PLANS = 32
_plans = collections.OrderedDict()
_plans_lock = threading.Lock()


def _cached_plan(q, k_cache, v_cache, block_table, strategy):
    shape = _Shape(q, k_cache, v_cache, block_table)
    stream = torch.cuda.current_stream(q.device).cuda_stream if q.is_cuda else None
    key = shape.key() + (strategy, threading.get_ident(), stream)
    with _plans_lock:
        plan = _plans.get(key)
        if plan is not None:
            _plans.move_to_end(key)
            return plan
    plan = DecodePlan(q, k_cache, v_cache, block_table, strategy=strategy)  # no other caller has this key: made unlocked
    with _plans_lock:
        _plans[key] = plan
        while len(_plans) > _MAX_PLANS:
            _plans.popitem(last=False)
    return plan


def decode_impl(q, k_cache, v_cache, cache_seqlens, block_table=None, softmax_scale=None, strategy="auto", return_lse=False):
    """decode() without the torch.library wrapper."""
    plan = _cached_plan(q, k_cache, v_cache, block_table, strategy)
    return plan.run(q, k_cache, v_cache, cache_seqlens, block_table, softmax_scale, return_lse=return_lse)

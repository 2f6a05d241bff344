"""The one timing method for every peer (leanattn, SDPA's backends, FlashInfer) and for the copy bandwidth.

Each op is captured once in a CUDA graph; then, per repetition, all enqueued on one stream without the host
waiting in between:
    flush   a write over a buffer of at least twice the L2 (256 MiB at least), so K and V come from HBM as in
            a real decode step, where the layer before evicted them; then a read over a second such buffer, so
            the L2 holds clean lines: the write's dirty lines are written back here, not during the op, where
            they would add up to an L2's worth of HBM writes to every op's time (and to every fixed cost)
    spin    torch.cuda._sleep: the GPU busy-waits ~20 us on its own clock, so the host has enqueued what follows
            before the GPU reaches it: the start event is never recorded while the host is still launching
    start   event
    replay  the graph: one launch of everything the op enqueues (the kernels that derive per-request work
            from the live lengths included)
    end     event
The times are end - start read after one synchronisation at the end: median, p10 and p90 of >= 100 repetitions,
after a few unrecorded warm-up ones. Graph replay takes host launch time out (one launch, not one per kernel),
and so does the spin for anything the host enqueues; what remains is the GPU's own time for the op, launch
latency of its first kernel included, which a decode loop replaying a graph also pays. An op that refuses to be
captured runs eagerly between the same events after the same flush and spin: its record says method "eager".
"""
import torch

from stats import summarize

SPIN_CYCLES = 40_000  # ~20 us at the H100's 1,980 MHz
WARMUP = 3


class Timer:
    def __init__(self, device="cuda"):
        props = torch.cuda.get_device_properties(device)
        l2 = getattr(props, "L2_cache_size", 50 * 2**20)
        self.flush_bytes = max(2 * l2, 256 * 2**20)
        self.flush = torch.empty(self.flush_bytes // 4, dtype=torch.int32, device=device)
        self.clean = torch.ones(1, self.flush_bytes // 4, dtype=torch.int32, device=device)
        self.sink = torch.empty(1, dtype=torch.int64, device=device)
        self.has_spin = hasattr(torch.cuda, "_sleep")

    def describe(self):
        return {"flush_bytes": self.flush_bytes, "spin_cycles": SPIN_CYCLES if self.has_spin else 0, "warmup": WARMUP,
                "method": "CUDA-graph replay between two events, after an L2 flush (a write, then a read of another "
                          "buffer, so the L2 is clean) and a GPU-side spin"}

    def _prelude(self, i):
        self.flush.fill_(i)
        torch.sum(self.clean, dim=1, out=self.sink)
        if self.has_spin:
            torch.cuda._sleep(SPIN_CYCLES)

    @staticmethod
    def capture(fn):
        """(graph, output, error): fn captured in a CUDA graph, with what fn returned during the capture (the
        tensor each replay rewrites), or (None, None, why) when fn cannot be captured."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside the capture, on a side stream, as torch asks
            fn()
            fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                out = fn()
        except Exception as e:  # a backend that cannot be captured: timed eagerly instead
            torch.cuda.synchronize()
            return None, None, f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        return graph, out, ""

    def time(self, fn, reps, graph=None):
        """Stats of `reps` timed repetitions of graph.replay() (or fn() eagerly when graph is None)."""
        return summarize(self.samples(fn, reps, graph))

    def samples(self, fn, reps, graph=None):
        """The times (us) of `reps` timed repetitions, after the warm-up ones: what time() summarizes."""
        replay = graph.replay if graph is not None else fn
        total = WARMUP + reps
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(total)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(total)]
        torch.cuda.synchronize()
        for i in range(total):
            self._prelude(i)
            starts[i].record()
            replay()
            ends[i].record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) * 1e3 for s, e in list(zip(starts, ends))[WARMUP:]]


def _time_copy(timer, reps, bytes_each):
    src = torch.empty(bytes_each // 4, dtype=torch.int32, device="cuda").random_()
    dst = torch.empty_like(src)
    fn = lambda: dst.copy_(src)
    graph, _, _ = timer.capture(fn)
    return timer.time(fn, reps, graph)


def copy_bandwidth(timer, reps=100, bytes_each=2 * 2**30):
    """A device-to-device copy of 2 GiB, timed like every op: (bytes read + written, stats)."""
    stats = _time_copy(timer, reps, bytes_each)
    torch.cuda.empty_cache()  # the buffers and the graph's pool, freed on return above
    return 2 * bytes_each, stats


def one_tiny_kernel(timer, reps=300):
    """A graph of one 1-element kernel, timed like every op: the method's own floor (the first kernel's launch
    latency and the two events), which every fixed cost it reports includes."""
    x = torch.ones(1, device="cuda")
    fn = lambda: x.add_(1)
    graph, _, _ = timer.capture(fn)
    return timer.time(fn, reps, graph)

"""The Python package's host-lengths step without PyTorch in the process: is the fixed-split gap between models.py and
`cuda bench` (bench/NOTES.md, "the capture probe") the process's, i.e. torch's, or the C ABI's?

Every buffer comes from the CUDA runtime through ctypes; the step is `leanattn_run_host_lengths` through the C ABI, as
DecodePlan.run calls it. Each repetition on one created stream: an L2 flush that leaves clean lines (a stream-k decode
reading a 512 MiB cache: reads only, ~0.2 ms, long enough that the host has enqueued what follows), then events around the
step, captured in a CUDA graph or enqueued as is. With --torch, torch is imported and initialised first and runs a few
kernels of its own: the same measurement in a process like models.py's.

usage: python3 bench/gpu/no_torch_probe.py [--torch] [--reps 200]   (LEANATTN_LIBRARY, LEANATTN_DATA set)
"""
import argparse
import ctypes
import ctypes.util
import glob
import importlib.util
import json
import os
import pathlib
import statistics
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_library_module():
    """python/leanattn/_library.py alone, so importing it does not import torch (the package's __init__ does)."""
    spec = importlib.util.spec_from_file_location("leanattn_library", REPO / "python" / "leanattn" / "_library.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_cudart():
    names = [ctypes.util.find_library("cudart")] + sorted(glob.glob("/usr/local/cuda*/lib64/libcudart.so*"), reverse=True)
    for name in names:
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    raise RuntimeError("no libcudart found")


class Cuda:
    def __init__(self):
        self.rt = load_cudart()

    def ok(self, status, what):
        if status != 0:
            raise RuntimeError(f"{what}: cuda error {status}")

    def malloc(self, n):
        p = ctypes.c_void_p()
        self.ok(self.rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(n)), "cudaMalloc")
        return p.value

    def memset(self, p, byte, n):
        self.ok(self.rt.cudaMemset(ctypes.c_void_p(p), byte, ctypes.c_size_t(n)), "cudaMemset")

    def stream(self):
        s = ctypes.c_void_p()
        self.ok(self.rt.cudaStreamCreateWithFlags(ctypes.byref(s), 1), "cudaStreamCreate")  # non-blocking
        return s.value

    def event(self):
        e = ctypes.c_void_p()
        self.ok(self.rt.cudaEventCreate(ctypes.byref(e)), "cudaEventCreate")
        return e.value

    def record(self, e, s):
        self.ok(self.rt.cudaEventRecord(ctypes.c_void_p(e), ctypes.c_void_p(s)), "cudaEventRecord")

    def elapsed_us(self, a, b):
        self.ok(self.rt.cudaEventSynchronize(ctypes.c_void_p(b)), "cudaEventSynchronize")
        ms = ctypes.c_float()
        self.ok(self.rt.cudaEventElapsedTime(ctypes.byref(ms), ctypes.c_void_p(a), ctypes.c_void_p(b)), "cudaEventElapsedTime")
        return ms.value * 1e3

    def capture(self, s, enqueue):
        self.ok(self.rt.cudaStreamBeginCapture(ctypes.c_void_p(s), 0), "cudaStreamBeginCapture")  # global mode
        enqueue()
        graph, exe = ctypes.c_void_p(), ctypes.c_void_p()
        self.ok(self.rt.cudaStreamEndCapture(ctypes.c_void_p(s), ctypes.byref(graph)), "cudaStreamEndCapture")
        self.ok(self.rt.cudaGraphInstantiate(ctypes.byref(exe), graph, ctypes.c_ulonglong(0)), "cudaGraphInstantiate")
        return exe.value

    def launch(self, exe, s):
        self.ok(self.rt.cudaGraphLaunch(ctypes.c_void_p(exe), ctypes.c_void_p(s)), "cudaGraphLaunch")


class Step:
    """One decode step through the C ABI on runtime-allocated buffers: (B, N, Hkv, d) views of (B, Hkv, N, d) caches."""

    def __init__(self, L, cuda, batch, q_heads, kv_heads, d, ctx, q_len, strategy, splits):
        self.L, self.cuda = L, cuda
        problem, self._ctx = L.make_problem(batch, q_heads, kv_heads, d, q_len, [ctx] * batch)
        options = L.make_options(strategy, splits, 0, None, 0, None, lengths="host")
        self.plan = L.PlanP()
        L.check(L.lib.leanattn_plan_create(ctypes.byref(problem), L.FP16, L.DEVICE_CUDA, ctypes.byref(options), ctypes.byref(self.plan)))
        size = ctypes.c_size_t()
        L.check(L.lib.leanattn_plan_workspace_bytes(self.plan, ctypes.byref(size)))
        self.ws_bytes = max(size.value, 1)
        self.ws = cuda.malloc(self.ws_bytes)
        cuda.memset(self.ws, 0, self.ws_bytes)
        q_elems, kv_elems = batch * q_len * q_heads * d, batch * kv_heads * ctx * d
        q, out, k, v = cuda.malloc(2 * q_elems), cuda.malloc(2 * q_elems), cuda.malloc(2 * kv_elems), cuda.malloc(2 * kv_elems)
        for p, n in ((q, 2 * q_elems), (k, 2 * kv_elems), (v, 2 * kv_elems)):
            cuda.memset(p, 0x3A, n)  # fp16 0x3A3A = 0.778: finite, not zero
        seqlens = cuda.malloc(4 * batch)
        self.host_lengths = (ctypes.c_int32 * batch)(*([ctx] * batch))
        self.rt_copy(seqlens, self.host_lengths, 4 * batch)
        t = L.Tensors()
        t.q = L.HeadTensor(q, q_len * q_heads * d, q_heads * d, d)
        t.out = L.HeadTensor(out, q_len * q_heads * d, q_heads * d, d)
        t.kv.k, t.kv.v = k, v
        t.kv.layout = L.KV_STRIDED
        t.kv.stride_request, t.kv.stride_token, t.kv.stride_head = kv_heads * ctx * d, d, ctx * d
        t.kv.capacity = ctx
        t.seqlens = seqlens
        self.tensors = t

    def rt_copy(self, dst, host, n):
        self.cuda.ok(self.cuda.rt.cudaMemcpy(ctypes.c_void_p(dst), host, ctypes.c_size_t(n), 1), "cudaMemcpy")  # host to device

    def enqueue(self, stream, host_lengths=True):
        L = self.L
        if host_lengths:
            L.check(L.lib.leanattn_run_host_lengths(self.plan, ctypes.byref(self.tensors), ctypes.cast(self.host_lengths, ctypes.c_void_p), None,
                                                    self.ws, self.ws_bytes, stream, 0))
        else:
            L.check(L.lib.leanattn_run(self.plan, ctypes.byref(self.tensors), self.ws, self.ws_bytes, stream, 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torch", action="store_true", help="import and initialise torch first, and run a few of its kernels")
    ap.add_argument("--reps", type=int, default=200)
    a = ap.parse_args()
    if a.torch:
        import torch
        x = torch.ones(1 << 20, device="cuda")
        torch.cuda.synchronize()
        print(f"torch {torch.__version__} initialised ({float(x.sum()):.0f})")
    L = load_library_module()
    cuda = Cuda()
    stream = cuda.stream()
    flush = Step(L, cuda, 1, 8, 8, 128, 131072, 1, "stream-k", 0)  # 512 MiB of K and V, read
    start, stop = cuda.event(), cuda.event()
    cases = [("qwen2.5-7b", 4, "fixed-split", 16), ("qwen2.5-7b", 4, "fixed-split", 24), ("qwen2.5-7b", 4, "stream-k", 0),
             ("falcon-7b", 1, "fixed-split", 26), ("falcon-7b", 1, "fixed-split", 64)]
    print(f"{'case':36} {'graph host':>10} {'eager host':>10} {'graph dev':>10}")
    for model, q_len, strategy, splits in cases:
        m = json.loads((REPO / "data" / "models" / f"{model}.json").read_text())
        step = Step(L, cuda, 1, m["q_heads"], m["kv_heads"], m["head_dim"], 16384, q_len, strategy, splits)
        row = {}
        for name, host, graphed in (("graph host", True, True), ("eager host", True, False), ("graph dev", False, True)):
            exe = cuda.capture(stream, lambda: step.enqueue(stream, host)) if graphed else None
            times = []
            for i in range(a.reps + 3):
                flush.enqueue(stream, True)
                cuda.record(start, stream)
                if exe is not None:
                    cuda.launch(exe, stream)
                else:
                    step.enqueue(stream, host)
                cuda.record(stop, stream)
                t = cuda.elapsed_us(start, stop)
                if i >= 3:
                    times.append(t)
            row[name] = statistics.median(times)
        print(f"{model + ' q' + str(q_len) + ' ' + strategy + ' ' + str(splits):36} {row['graph host']:10.1f} {row['eager host']:10.1f} "
              f"{row['graph dev']:10.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())

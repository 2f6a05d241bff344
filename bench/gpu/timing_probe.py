"""Which part of timing.py's method moves the time of a host-lengths fixed-split step of about one wave (bench/NOTES.md,
"the capture probe": 2-5 us above `cuda bench` and the torch-free probe on the same plans)?

The same captured DecodePlan step timed four ways on one machine:
    timing.py       as the suite times every peer: per repetition fill (write), sum (read), _sleep, events; one sync at the end
    + sync          the same, and a synchronisation after every repetition (as `cuda bench` does)
    no spin         timing.py without the _sleep before the start event
    sync, no spin   both changes
then, synchronised after each repetition, with the flush's write and read halves resized or left out.

usage: python3 bench/gpu/timing_probe.py [--reps 200]   (on the GPU machine, LEANATTN_LIBRARY set)
"""
import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import Case, load_models  # noqa: E402
from timing import SPIN_CYCLES, WARMUP, Timer  # noqa: E402

import leanattn  # noqa: E402

CASES = [("qwen2.5-7b", 4, "fixed-split", 16), ("qwen2.5-7b", 4, "fixed-split", 24), ("falcon-7b", 1, "fixed-split", 26),
         ("falcon-7b", 1, "fixed-split", 64), ("llama-3-8b", 1, "stream-k", 0)]


def time_variant(timer, graph, reps, sync_each, spin, write_mb=None, read_mb=None):
    """write_mb / read_mb: the flush's write and read sizes (None: timing.py's, 0: that half left out)."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(WARMUP + reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(WARMUP + reps)]
    write = timer.flush if write_mb is None else timer.flush[:write_mb * 2**18]
    read = timer.clean if read_mb is None else timer.clean[:, :read_mb * 2**18]
    torch.cuda.synchronize()
    for i in range(WARMUP + reps):
        if write.numel():
            write.fill_(i)
        if read.numel():
            torch.sum(read, dim=1, out=timer.sink)
        if spin:
            torch.cuda._sleep(SPIN_CYCLES)
        starts[i].record()
        graph.replay()
        ends[i].record()
        if sync_each:
            ends[i].synchronize()
    torch.cuda.synchronize()
    times = [s_.elapsed_time(e) * 1e3 for s_, e in list(zip(starts, ends))[WARMUP:]]
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    a = ap.parse_args()
    timer = Timer()
    flushes = [("write 256 + read 256", None, None), ("write 100 + read 100", 100, 100), ("write 256 only", None, 0),
               ("read 256 only", 0, None), ("no flush", 0, 0)]
    print(f"{'case':36} {'timing.py':>10} {'+ sync':>10} {'no spin':>10} {'sync, no spin':>14}   then, synced, by flush (MiB): "
          + ", ".join(f[0] for f in flushes))
    for model, q_len, strategy, splits in CASES:
        case = Case(load_models([model])[0], 1, 16384, q_len, "fp16")  # models.py's inputs
        q, seqlens = case.q, case.seqlens
        k, v = case.k.transpose(1, 2), case.v.transpose(1, 2)  # (B, N, Hkv, d) views, as models.py runs leanattn
        host = seqlens.cpu()
        plan = leanattn.DecodePlan(q, k, v, None, strategy=strategy, splits=splits)
        out = torch.empty_like(q)
        fn = lambda: plan.run(q, k, v, seqlens, None, out=out, check_lengths=False, host_seqlens=host)  # noqa: E731
        graph, _, _ = timer.capture(fn)
        row = [time_variant(timer, graph, a.reps, sync, spin) for sync, spin in ((False, True), (True, True), (False, False), (True, False))]
        by_flush = [time_variant(timer, graph, a.reps, True, True, w, r) for _, w, r in flushes]
        print(f"{model + ' q' + str(q_len) + ' ' + strategy + ' ' + str(splits):36} {row[0]:10.1f} {row[1]:10.1f} {row[2]:10.1f} {row[3]:14.1f}   "
              + " ".join(f"{t:6.1f}" for t in by_flush), flush=True)


if __name__ == "__main__":
    main()

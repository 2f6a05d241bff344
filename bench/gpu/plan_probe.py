"""One model shape's other plans, timed the way models.py times every peer (timing.py: graph replay after an L2 flush
and a GPU-side spin, median), beside SDPA's cuDNN backend, in one process: what a Python user would get from a plan
that `cuda bench` (the kernel models' data) timed faster than auto's choice.

Each line of PLANS: model batch ctx q_len strategy [splits=N] [grid=N] [tile_rows=N] (host-lengths steps, as models.py's
leanattn peers); every output is checked against float64 before it is timed.

With --variants each peer is also timed with a synchronisation after every repetition (as `cuda bench` does) and with
the flush's write half only (timing_probe.py's variants): whether the method moves ours and cuDNN's alike.

usage (GPU machine, LEANATTN_LIBRARY set): python3 bench/gpu/plan_probe.py PLANS [--dtypes fp16,bf16] [--reps 100] [--variants]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inputs import TOLERANCE, rel_l2  # noqa: E402
from models import Case, load_models, sdpa_peer  # noqa: E402
from timing import Timer  # noqa: E402
from timing_probe import time_variant  # noqa: E402


def plan_peer(strategy, options):
    def prepare(case):
        import leanattn
        k, v = case.k.transpose(1, 2), case.v.transpose(1, 2)  # (B, N, Hkv, d) views, as models.py runs leanattn
        plan = leanattn.DecodePlan(case.q, k, v, None, strategy=strategy, lengths="host", **options)
        out = torch.empty_like(case.q)
        host = case.seqlens.cpu()

        def run():
            plan.run(case.q, k, v, case.seqlens, None, out=out, check_lengths=False, host_seqlens=host)
            return out

        run.poison = lambda: out.fill_(float("nan"))
        run.keep = (plan, k, v)
        return run
    return prepare


def read_plans(path):
    """(line, model, batch, ctx, q_len, strategy, DecodePlan options) for each line of a PLANS file."""
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        model, batch, ctx, q_len, strategy, *rest = line.split()
        yield line.strip(), model, int(batch), int(ctx), int(q_len), strategy, {k: int(v) for k, v in (r.split("=") for r in rest)}


def timed(case, timer, prepare, reps, ref, variants):
    run = prepare(case)
    run.poison()
    err = rel_l2(run(), ref)
    if not err <= TOLERANCE[case.dtype_name]:
        return f"FAILED rel. L2 {err:.3g}"
    graph, _, _ = timer.capture(run)
    text = f"{timer.time(run, reps, graph)['median_us']:.1f}"
    if variants and graph is not None:
        synced = time_variant(timer, graph, reps, True, True)
        write_only = time_variant(timer, graph, reps, True, True, None, 0)
        text += f" (synced {synced:.1f}, write-only flush {write_only:.1f})"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("plans")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--variants", action="store_true", help="also time each peer synchronised and after a write-only flush")
    a = ap.parse_args()
    timer = Timer()
    for line, model, batch, ctx, q_len, strategy, options in read_plans(a.plans):
        for dtype in a.dtypes.split(","):
            case = Case(load_models([model])[0], batch, ctx, q_len, dtype)
            ref = case.reference()
            ours = timed(case, timer, plan_peer(strategy, options), a.reps, ref, a.variants)
            cudnn = timed(case, timer, sdpa_peer("cudnn")[1], a.reps, ref, a.variants)
            print(f"{line:60} {dtype}  leanattn {ours} us  sdpa/cudnn {cudnn} us", flush=True)
            torch.cuda.synchronize()


if __name__ == "__main__":
    main()

"""Attention inside a decode loop: what one attention step adds to a layer when it follows a weight GEMM, as in a model.

A graph of LAYERS layers, each a skinny GEMM (the batch's rows times a 8192 x 4096 fp16 weight: 64 MiB, which evicts
K and V from the L2 as a real layer's weights do) then the attention step on that layer's own K and V cache; and the
same graph without the attention. Both timed as every peer is (timing.py); the attention's cost per layer is their
difference over LAYERS. What precedes a step here is what precedes it in a model, not a flush kernel: the measure
for launch-level choices (e.g. LEANATTN_PDL=0, bench/NOTES.md) that a harness's own state could decide either way.

Each line of PLANS: model batch ctx q_len strategy [splits=N] [tile_rows=N] (plan_probe.py's format); leanattn's plan
and SDPA's cuDNN backend are timed on the same layers.

usage (GPU machine, LEANATTN_LIBRARY set): python3 bench/gpu/decode_loop.py PLANS [--layers 8] [--dtype fp16] [--reps 50]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inputs import TOLERANCE, rel_l2  # noqa: E402
from models import Case, load_models, sdpa_peer  # noqa: E402
from plan_probe import plan_peer, read_plans  # noqa: E402
from timing import Timer  # noqa: E402


def loop_us(timer, layers, gemm, steps, reps):
    """Median us of one replay of LAYERS x (gemm, step): steps is one callable per layer, or None for the GEMMs alone."""
    def body():
        for i in range(layers):
            gemm()
            if steps is not None:
                steps[i]()
    graph, _, why = timer.capture(body)
    if graph is None:
        raise RuntimeError(f"the loop cannot be captured: {why}")
    return timer.time(body, reps, graph)["median_us"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("plans")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--reps", type=int, default=50)
    a = ap.parse_args()
    timer = Timer()
    weight = torch.randn(8192, 4096, dtype=torch.float16, device="cuda")
    for line, model, batch, ctx, q_len, strategy, options in read_plans(a.plans):
        cases = [Case(load_models([model])[0], batch, ctx, q_len, a.dtype, seed=1 + i) for i in range(a.layers)]
        x = torch.randn(batch * q_len, 8192, dtype=torch.float16, device="cuda")
        y = torch.empty(x.shape[0], 4096, dtype=torch.float16, device="cuda")
        gemm = lambda: torch.mm(x, weight, out=y)  # noqa: E731
        base = loop_us(timer, a.layers, gemm, None, a.reps)
        row = []
        for name, prepare in (("leanattn", plan_peer(strategy, options)), ("sdpa/cudnn", sdpa_peer("cudnn")[1])):
            steps = [prepare(c) for c in cases]
            steps[0].poison()  # the first layer's output checked against float64
            err = rel_l2(steps[0](), cases[0].reference())
            if not err <= TOLERANCE[a.dtype]:
                raise RuntimeError(f"{name} on {line}: rel. L2 {err:.3g}")
            total = loop_us(timer, a.layers, gemm, steps, a.reps)
            row.append(f"{name} {(total - base) / a.layers:.1f} us/layer")
        print(f"{line:50} {a.dtype} layers {a.layers}: GEMMs alone {base / a.layers:.1f} us/layer; " + ", ".join(row), flush=True)
        del cases
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

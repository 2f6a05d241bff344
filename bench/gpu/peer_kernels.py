"""Each peer's kernels on a few model shapes, for Nsight Compute: our plans (as plan_probe.py runs them) and SDPA's
backends, every run inside an NVTX range "profile" (and in it one naming the plan line and the peer), so that `ncu --nvtx
--nvtx-include "profile/"` profiles exactly those launches (not the float64 reference, not the warm-up). Says, beside our own
kernel's, how many CTAs of what size a peer launches, what it reads from DRAM and how fast: what a timing alone
cannot tell.

Each peer's output is checked against float64 before it is profiled. bench/gpu/peer_kernels.sh runs this under ncu.

usage (GPU machine, LEANATTN_LIBRARY set): python3 bench/gpu/peer_kernels.py PLANS [--dtype fp16] [--backends cudnn,flash]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inputs import TOLERANCE, rel_l2  # noqa: E402
from models import Case, load_models, sdpa_peer  # noqa: E402
from plan_probe import plan_peer, read_plans  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("plans")
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--backends", default="cudnn,flash")
    ap.add_argument("--runs", type=int, default=2, help="profiled runs of each peer")
    a = ap.parse_args()
    for line, model, batch, ctx, q_len, strategy, options in read_plans(a.plans):
        case = Case(load_models([model])[0], batch, ctx, q_len, a.dtype)
        ref = case.reference()
        peers = [(f"leanattn {strategy} {options}", plan_peer(strategy, options))]
        peers += [(f"sdpa/{b}", sdpa_peer(b)[1]) for b in a.backends.split(",") if b]
        for name, prepare in peers:
            try:
                run = prepare(case)
                run.poison()
                err = rel_l2(run(), ref)
            except RuntimeError as e:  # a backend that refuses the shape
                print(f"{line} | {name}: refused ({str(e).splitlines()[0][:120]})", flush=True)
                continue
            verdict = "ok" if err <= TOLERANCE[case.dtype_name] else "FAILED"
            print(f"{line} | {name}: rel. L2 {err:.3g} {verdict}", flush=True)
            if verdict != "ok":
                continue
            torch.cuda.synchronize()
            for _ in range(a.runs):
                torch.cuda.nvtx.range_push("profile")
                torch.cuda.nvtx.range_push(f"{line} | {name}")
                run()
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_pop()
                torch.cuda.nvtx.range_pop()
        del case, ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

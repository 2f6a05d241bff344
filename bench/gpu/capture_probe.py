"""One plan timed every way the suite and `cuda bench` time it, side by side in one process: where the two harnesses
disagree (fixed-split, 2-3.5 us on 2026-11-26), which part of the method moves the time.

For each case (model flags of `leanattn cuda bench` and a strategy), on the GPU machine:
    torch graph, host lengths     DecodePlan.run(host_seqlens=...) captured by torch.cuda.graph, timed by timing.py
                                  (what models.py and the suite report)
    eager, host lengths           the same call, not captured: enqueued after timing.py's flush and spin
    ... side stream               both again on a created stream (torch's current stream is otherwise the default one)
    with lse, h100 plan           the captured step writing the LSE too; the plan made with device="h100-sxm"
    torch graph, device lengths   DecodePlan.run(check_lengths=False): the prologue kernel, then the same kernels
    cuda bench, bench dev         `leanattn cuda bench --lengths host` (the kernel models' data) and `--lengths device`
and, with --dump DIR, each captured host-lengths graph as DOT, torch's (debug_dump) and cuda bench's
(LEANATTN_GRAPH_DOT): nodes, parameters and edge types.

usage: python3 bench/gpu/capture_probe.py --bin .devbuild/leanattn [--dump DIR] [--reps 200] > probe.txt
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import Case, load_models  # noqa: E402
from timing import Timer  # noqa: E402

CASES = [  # (model, batch, ctx, q_len, strategy, splits)
    ("qwen2.5-7b", 1, 16384, 4, "fixed-split", 16),
    ("qwen2.5-7b", 1, 16384, 4, "fixed-split", 24),
    ("falcon-7b", 1, 16384, 1, "fixed-split", 26),
    ("falcon-7b", 1, 16384, 1, "fixed-split", 64),
    ("llama-3-8b", 1, 16384, 1, "stream-k", 0),
]


def cuda_bench(binary, model, batch, ctx, q_len, strategy, splits, lengths="host", dot=None):
    flags = ["--model", model, "--batch", str(batch), "--ctx", str(ctx), "--q-len", str(q_len), "--strategy", strategy,
             "--lengths", lengths, "--repeat", "100", "--format", "json"] + (["--splits", str(splits)] if splits else [])
    env = dict(os.environ, LEANATTN_GRAPH_DOT=dot) if dot else None
    out = subprocess.run([binary, "cuda", "bench", *flags], capture_output=True, text=True, check=True, env=env).stdout
    r = json.loads(out)["results"][0]
    return r["median_us"], r["grid"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the leanattn CLI (for cuda bench)")
    ap.add_argument("--dump", help="write each captured host-lengths graph as DOT into this folder")
    ap.add_argument("--reps", type=int, default=200)
    a = ap.parse_args()
    import leanattn
    timer = Timer()
    print(f"{'case':44} {'graph host':>10} {'eager host':>10} {'graph side':>10} {'eager side':>10} {'with lse':>10} {'h100 plan':>10} "
          f"{'graph dev':>10} {'cuda bench':>10} {'bench dev':>10}  grid")
    for model, batch, ctx, q_len, strategy, splits in CASES:
        case = Case(load_models([model])[0], batch, ctx, q_len, "fp16")  # models.py's inputs
        q, seqlens, hq = case.q, case.seqlens, case.hq
        k, v = case.k.transpose(1, 2), case.v.transpose(1, 2)  # (B, N, Hkv, d) views, as models.py runs leanattn
        host = seqlens.cpu()
        plan = leanattn.DecodePlan(q, k, v, None, strategy=strategy, splits=splits)
        out = torch.empty_like(q)
        times = {}
        for name, kwargs in (("host", {"host_seqlens": host}), ("device", {})):
            fn = lambda kw=kwargs: plan.run(q, k, v, seqlens, None, out=out, check_lengths=False, **kw)  # noqa: E731
            if name == "host" and a.dump:
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph(keep_graph=True)
                graph.enable_debug_mode()
                with torch.cuda.graph(graph):
                    fn()
                graph.instantiate()
                pathlib.Path(a.dump).mkdir(parents=True, exist_ok=True)
                graph.debug_dump(str(pathlib.Path(a.dump) / f"{model}-q{q_len}-{strategy}-{splits}.dot"))
                del graph
            graph, _, why = timer.capture(fn)
            times[f"graph {name}"] = timer.time(fn, a.reps, graph)["median_us"]
            if name == "host":
                times["eager host"] = timer.time(fn, a.reps, None)["median_us"]
                lse = torch.empty(batch, hq, q_len, dtype=torch.float32, device="cuda")
                with_lse = lambda kw=kwargs: plan.run(q, k, v, seqlens, None, out=out, lse=lse, check_lengths=False, **kw)  # noqa: E731
                graph_lse, _, _ = timer.capture(with_lse)
                times["graph host, lse"] = timer.time(with_lse, a.reps, graph_lse)["median_us"]
                named = leanattn.DecodePlan(q, k, v, None, strategy=strategy, splits=splits, device="h100-sxm")
                fn_named = lambda kw=kwargs: named.run(q, k, v, seqlens, None, out=out, check_lengths=False, **kw)  # noqa: E731
                graph_named, _, _ = timer.capture(fn_named)
                times["graph host, h100-sxm plan"] = timer.time(fn_named, a.reps, graph_named)["median_us"]
                side = torch.cuda.Stream()  # the same, enqueued on a created stream rather than the default one
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    times["graph host, side stream"] = timer.time(fn, a.reps, graph)["median_us"]
                    times["eager host, side stream"] = timer.time(fn, a.reps, None)["median_us"]
                torch.cuda.current_stream().wait_stream(side)
        tag = f"{model}-q{q_len}-{strategy}-{splits}"
        bench_us, grid = cuda_bench(a.bin, model, batch, ctx, q_len, strategy, splits,
                                    dot=str(pathlib.Path(a.dump) / f"cuda-bench-{tag}") if a.dump else None)
        bench_dev_us, _ = cuda_bench(a.bin, model, batch, ctx, q_len, strategy, splits, lengths="device")
        label = f"{model} B={batch} {ctx // 1024}k q{q_len} {strategy}" + (f" {splits}" if splits else "")
        print(f"{label:44} {times['graph host']:10.1f} {times['eager host']:10.1f} {times['graph host, side stream']:10.1f} "
              f"{times['eager host, side stream']:10.1f} {times['graph host, lse']:10.1f} {times['graph host, h100-sxm plan']:10.1f} "
              f"{times['graph device']:10.1f} {bench_us:10.1f} {bench_dev_us:10.1f}  "
              f"{plan.to_dict()['grid']}/{grid}", flush=True)


if __name__ == "__main__":
    main()

"""Does where the Python step's buffers sit move its time? Qwen2.5-7B q_len 4, fixed-split 16, host lengths, the
buffers shifted by a padding allocation or the workspace moved (bench/NOTES.md, the capture probe)."""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from models import Case, load_models  # noqa: E402
from timing import Timer  # noqa: E402

import leanattn  # noqa: E402


def time_at(timer, model, shift_mb, fresh_ws, splits=16):
    """Times the step with a padding allocation of shift_mb first and (fresh_ws) the workspace in another segment."""
    pad = torch.empty(shift_mb * 2**20, dtype=torch.uint8, device="cuda") if shift_mb else None
    inputs = Case(model, 1, 16384, 4, "fp16")  # models.py's inputs, allocated after the padding
    q, seqlens = inputs.q, inputs.seqlens
    k, v = inputs.k.transpose(1, 2), inputs.v.transpose(1, 2)
    host = seqlens.cpu()
    plan = leanattn.DecodePlan(q, k, v, None, strategy="fixed-split", splits=splits)
    if fresh_ws:
        n = plan.workspace.numel()
        plan.workspace = torch.zeros(n + (1 << 21), dtype=torch.uint8, device="cuda")[(1 << 20):(1 << 20) + n]
    out = torch.empty_like(q)
    fn = lambda: plan.run(q, k, v, seqlens, None, out=out, check_lengths=False, host_seqlens=host)  # noqa: E731
    graph, _, _ = timer.capture(fn)
    t = timer.time(fn, 200, graph)["median_us"]
    addrs = {n: hex(x.data_ptr()) for n, x in (("q", q), ("k", k), ("v", v), ("out", out), ("ws", plan.workspace))}
    print(f"shift {shift_mb:4d} MB fresh_ws {fresh_ws!s:5} splits {splits:3d}: {t:6.1f} us  {addrs}", flush=True)
    del pad


def main():
    timer = Timer()
    model = load_models(["qwen2.5-7b"])[0]
    for shift, fresh in ((0, False), (0, True), (7, False), (64, False), (333, True), (0, False)):
        time_at(timer, model, shift, fresh)
    time_at(timer, model, 0, False, 24)


if __name__ == "__main__":
    main()

"""Does where the Python step's buffers sit move its time? Qwen2.5-7B q_len 4, fixed-split 16, host lengths, the
buffers shifted by a padding allocation or the workspace moved (bench/NOTES.md, the capture probe)."""
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from timing import Timer  # noqa: E402

import leanattn  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
timer = Timer()
m = json.loads((REPO / "data" / "models" / "qwen2.5-7b.json").read_text())
hq, hkv, d, ctx, q_len = m["q_heads"], m["kv_heads"], m["head_dim"], 16384, 4
def case(shift_mb, fresh_ws, splits=16, model=None):
    pad = torch.empty(shift_mb * 2**20, dtype=torch.uint8, device="cuda") if shift_mb else None
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.empty(1, q_len, hq, d, dtype=torch.float16, device="cuda").uniform_(-1.7, 1.7, generator=g)
    k = torch.empty(1, hkv, ctx, d, dtype=torch.float16, device="cuda").uniform_(-1.7, 1.7, generator=g).transpose(1, 2)
    v = torch.empty_like(k).uniform_(-1.7, 1.7, generator=g)
    seqlens = torch.full((1,), ctx, dtype=torch.int32, device="cuda"); host = seqlens.cpu()
    plan = leanattn.DecodePlan(q, k, v, None, strategy="fixed-split", splits=splits)
    if fresh_ws:
        plan.workspace = torch.zeros(plan.workspace.numel() + (1 << 21), dtype=torch.uint8, device="cuda")[(1 << 20):(1 << 20) + plan.workspace.numel()]
    out = torch.empty_like(q)
    fn = lambda: plan.run(q, k, v, seqlens, None, out=out, check_lengths=False, host_seqlens=host)
    graph, _, _ = timer.capture(fn)
    t = timer.time(fn, 200, graph)["median_us"]
    addrs = {n: hex(x.data_ptr()) for n, x in (("q", q), ("k", k), ("v", v), ("out", out), ("ws", plan.workspace))}
    print(f"shift {shift_mb:4d} MB fresh_ws {fresh_ws!s:5} splits {splits:3d}: {t:6.1f} us  {addrs}", flush=True)
    del pad
for shift, fresh in ((0, False), (0, True), (7, False), (64, False), (333, True), (0, False)):
    case(shift, fresh)
case(0, False, 24)

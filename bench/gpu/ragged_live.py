"""Plans made for a cache's capacity, run at ragged live lengths below it: what a serving engine's steps look like, and
what models.py (uniform lengths at the capacity) cannot show. Per model of data/models, a batch at a capacity, the
live lengths drawn with fixed seeds (--draws of them per shape), uniform in [capacity / 16, capacity]:
    leanattn/auto, leanattn/stream-k, leanattn/no-split, leanattn/fixed-split
        leanattn.DecodePlan made for the capacity (the default strategy is auto), each step a host-lengths step at
        the live lengths (run(host_seqlens=...)), and auto as a step reading its lengths on the device (auto-device)
    sdpa/cudnn  scaled_dot_product_attention on the cache cut to the longest live request, a boolean mask per request
Every output is NaN-poisoned, computed once and checked against float64 at the live lengths before it is timed
(timing.py: graph replay after an L2 flush, median; peers in two mirrored blocks, as models.py times them).

usage (GPU machine, repository root, LEANATTN_LIBRARY pointing at libleanattn.so):
    python3 bench/gpu/ragged_live.py --out OUT [--models a,b] [--shapes 8x4096,32x2048] [--draws 3] [--q-len 1] [--reps 60]
Writes OUT/ragged.jsonl and OUT/ragged.txt: per shape and draw each plan's time; then, per shape over its draws
(geometric means), each plan's time over the best of stream-k, no-split and fixed-split, auto's among them.
"""
import argparse
import json
import math
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from models import Case, check_and_capture, load_models, time_mirrored  # noqa: E402
from stats import geomean  # noqa: E402
from timing import Timer  # noqa: E402


class RaggedCase(Case):
    """models.py's Case at the capacity, with live lengths below it."""

    def __init__(self, model, batch, capacity, q_len, dtype_name, draw=1):
        super().__init__(model, batch, capacity, q_len, dtype_name)
        self.draw = draw
        g = torch.Generator().manual_seed(draw)
        self.live = torch.randint(max(capacity // 16, q_len), capacity + 1, (batch,), generator=g, dtype=torch.int32)
        self.seqlens = self.live.to("cuda")

    @property
    def name(self):
        return f"{self.model['name']}-b{self.batch}-cap{self.ctx}-q{self.q_len}-ragged-{self.dtype_name}-draw{self.draw}"

    @property
    def live_bytes(self):
        return 2 * int(self.live.sum()) * self.hkv * self.d * self.k.element_size()

    def reference(self):
        """(B, q_len, Hq, d) in float64: new token i of request b sees its first live - q_len + i + 1 tokens."""
        g, ql = self.hq // self.hkv, self.q_len
        out = torch.empty(self.batch, ql, self.hq, self.d, dtype=torch.float64, device="cuda")
        for b in range(self.batch):
            n = int(self.live[b])
            mask = torch.ones(ql, n, dtype=torch.bool, device="cuda").tril(n - ql)  # (token, key)
            for h in range(self.hkv):
                q = self.q[b, :, h * g:(h + 1) * g].double().reshape(ql * g, self.d)  # rows (token, head)
                s = (q @ self.k[b, h, :n].double().T / math.sqrt(self.d)).view(ql, g, n).masked_fill(~mask[:, None, :], -math.inf)
                o = torch.softmax(s.view(ql * g, n), dim=-1) @ self.v[b, h, :n].double()
                out[b, :, h * g:(h + 1) * g] = o.view(ql, g, self.d)
        return out


def leanattn_peer(strategy, device_lengths=False):
    def prepare(case):
        import leanattn
        k, v = case.k.transpose(1, 2), case.v.transpose(1, 2)  # (B, N, Hkv, d) views of the capacity
        plan = leanattn.DecodePlan(case.q, k, v, None, strategy=strategy, lengths="device" if device_lengths else "host")
        out = torch.empty_like(case.q)
        host = None if device_lengths else case.live.clone()

        def run():
            plan.run(case.q, k, v, case.seqlens, None, out=out, check_lengths=False, host_seqlens=host)
            return out

        run.poison = lambda: out.fill_(float("nan"))
        run.keep = (plan, k, v)
        run.plan = plan.to_dict()
        return run
    return f"leanattn/{strategy}" + ("-device" if device_lengths else ""), prepare


def cudnn_peer(case):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    n, ql = int(case.live.max()), case.q_len
    q = case.q.transpose(1, 2).contiguous()  # (B, Hq, q_len, d)
    k, v = case.k[:, :, :n], case.v[:, :, :n]
    # (B, 1, q_len, n): new token i of request b sees keys below live[b] - q_len + i + 1
    seen = case.seqlens[:, None] - ql + 1 + torch.arange(ql, device="cuda")[None, :]
    mask = (torch.arange(n, device="cuda")[None, None, :] < seen[:, :, None])[:, None]

    def run():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=case.hq != case.hkv)
        return out.transpose(1, 2)

    run.poison = lambda: None
    return run


PEERS = [leanattn_peer(s) for s in ("auto", "stream-k", "no-split", "fixed-split")] + [leanattn_peer("auto", device_lengths=True)]


def measure(case, timer, reps):
    ref = case.reference()
    records, ready = [], []
    for name, prepare in PEERS + [("sdpa/masked", cudnn_peer)]:
        rec = {"kind": "ragged", "shape": case.name, "model": case.model["name"], "peer": name, "batch": case.batch, "capacity": case.ctx, "q_len": case.q_len,
               "draw": case.draw, "live": case.live.tolist(), "dtype": case.dtype_name, "live_kv_bytes": case.live_bytes}
        records.append(rec)
        if (checked := check_and_capture(rec, prepare, case, ref, timer)) is not None:
            run, graph = checked
            if hasattr(run, "plan"):
                rec["plan"] = {k: run.plan[k] for k in ("strategy", "grid", "launches")}
            ready.append((rec, run, graph))
    time_mirrored(timer, ready, reps)
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--models", default="")
    ap.add_argument("--shapes", default="8x4096,32x2048", help="BATCHxCAPACITY, comma-separated")
    ap.add_argument("--draws", type=int, default=3, help="live-length draws per shape (seeds 1..N)")
    ap.add_argument("--q-len", type=int, default=1, help="new tokens per request (causal among them)")
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    ap.add_argument("--reps", type=int, default=60)
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    timer = Timer()
    shapes = [tuple(int(x) for x in s.split("x")) for s in a.shapes.split(",") if s]
    rows = []
    by_shape = {}  # (model, batch, capacity) -> peer -> [median per draw]
    t0 = time.time()
    with open(a.out / "ragged.jsonl", "w") as log:
        log.write(json.dumps({"kind": "machine", "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}) + "\n")
        for model in load_models(set(filter(None, a.models.split(",")))):
            for batch, capacity in shapes:
                for draw in range(1, a.draws + 1):
                    case = RaggedCase(model, batch, capacity, a.q_len, a.dtype, draw)
                    recs = measure(case, timer, a.reps)
                    for rec in recs:
                        log.write(json.dumps(rec) + "\n")
                    log.flush()
                    t = {r["peer"]: r for r in recs}
                    for peer, r in t.items():
                        if r.get("median_us"):
                            by_shape.setdefault((model["name"], batch, capacity, a.q_len), {}).setdefault(peer, []).append(r["median_us"])
                    plan = t.get("leanattn/auto", {}).get("plan", {})
                    cells = " ".join(f"{p.split('/')[1]} {t[p]['median_us']:.1f}" if t[p].get("median_us") else f"{p.split('/')[1]} -" for p in t)
                    rows.append(f"{case.name:50} auto={plan.get('strategy')}/{plan.get('grid')}  {cells}")
                    print(f"[{time.time() - t0:5.0f} s] {rows[-1]}", flush=True)
                    del case
                    torch.cuda.empty_cache()
    # Per shape, over its draws: each plan's time against the best of the three strategies.
    plans = ("leanattn/auto", "leanattn/stream-k", "leanattn/no-split", "leanattn/fixed-split")
    summary, over_best = [], {p: [] for p in plans}
    for (name, batch, capacity, q_len), peers in by_shape.items():
        if not all(len(peers.get(p, [])) == a.draws for p in plans):
            continue
        best = min(geomean(peers[p]) for p in plans[1:])
        ratios = {p: geomean(peers[p]) / best for p in plans}
        for p in plans:
            over_best[p].append(ratios[p])
        summary.append(f"{name:16} B={batch:<3} capacity {capacity:6} q_len {q_len}: " + "  ".join(f"{p.split('/')[1]} {ratios[p]:.3f}" for p in plans))
    totals = "; ".join(f"{p.split('/')[1]} {geomean(v):.3f} (worst {max(v):.3f}, beyond 3% on {sum(r > 1.03 for r in v)})" for p, v in over_best.items() if v)
    text = "\n".join(rows) + "\n\nover the best of stream-k, no-split and fixed-split (geometric mean over the draws):\n" + "\n".join(summary) + \
        f"\n\nall shapes ({len(summary)}), geometric mean over the best: {totals}\n"
    (a.out / "ragged.txt").write_text(text)
    print(text[text.index("over the best"):])


if __name__ == "__main__":
    main()

"""Every model of data/models on the GPU, beside SDPA: q_len 1 (decode) and 4 (speculative decoding's drafts,
causal among the new tokens), timed with the suite's one method (timing.py: graph replay after an L2 flush and
a GPU-side spin, median of >= 100).

Per model, two uniform batches (B=1 at 16k tokens, B=8 at 4k) x q_len 1 and 4 x fp16 (and bf16 with --bf16):
    leanattn/stream-k, leanattn/auto,      leanattn.DecodePlan on the strided cache view as host-lengths steps (auto:
    leanattn/no-split, leanattn/fixed-split   the strategy and grid the calibrated kernel model predicts fastest, the
                                              one a user should pick)
    leanattn/auto-device                      auto reading cache_seqlens on the device (the graph-replayable step)
    leanattn/auto-staged                      auto as a staged step: the host's table staged into the workspace before the
                                              replay (once: the lengths do not change), the graph holding the step alone
    sdpa/flash, sdpa/cudnn, sdpa/efficient    scaled_dot_product_attention, one backend each, enable_gqa=True;
                                              q_len > 1 with a boolean mask, new token i seeing the first
                                              n - q_len + i + 1 tokens (SDPA's is_causal aligns the other way)
Each peer's output is NaN-poisoned, computed once and compared with a float64 reference before it is timed
(rel. L2 within 1e-3 for fp16, 8e-3 for bf16); a peer that refuses or fails is recorded with its own words. A shape's
peers are timed in two blocks of half the repetitions each, in the order above and then the reverse (measure()).

usage (GPU machine, repository root, LEANATTN_LIBRARY pointing at libleanattn.so):
    python3 bench/gpu/models.py --out OUT [--models a,b] [--bf16] [--reps 100]
Writes OUT/models.jsonl (a record per peer and shape) and OUT/models.md (the table make_report.py takes).
"""
import argparse
import json
import math
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from inputs import TOLERANCE, TORCH_DTYPES, rel_l2  # noqa: E402
from stats import geomean, summarize  # noqa: E402
from timing import Timer, copy_bandwidth  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
BATCHES = ((1, 16384), (8, 4096))  # (batch, context tokens)
Q_LENS = (1, 4)


def load_models(names):
    models = [json.loads(p.read_text()) for p in sorted((REPO / "data" / "models").glob("*.json"))]
    return [m for m in models if not names or m["name"] in names]


class Case:
    def __init__(self, model, batch, ctx, q_len, dtype_name, seed=1):
        self.model, self.batch, self.ctx, self.q_len = model, batch, ctx, q_len
        self.dtype_name, self.dtype = dtype_name, TORCH_DTYPES[dtype_name]
        self.hq, self.hkv, self.d = model["q_heads"], model["kv_heads"], model["head_dim"]
        g = torch.Generator(device="cuda").manual_seed(seed)
        a = math.sqrt(3.0)  # uniform in [-a, a): unit variance, never zeros
        self.q = torch.empty(batch, q_len, self.hq, self.d, dtype=self.dtype, device="cuda").uniform_(-a, a, generator=g)
        self.k = torch.empty(batch, self.hkv, ctx, self.d, dtype=self.dtype, device="cuda").uniform_(-a, a, generator=g)
        self.v = torch.empty_like(self.k).uniform_(-a, a, generator=g)
        self.seqlens = torch.full((batch,), ctx, dtype=torch.int32, device="cuda")

    @property
    def name(self):
        return f"{self.model['name']}-b{self.batch}-{self.ctx // 1024}k-q{self.q_len}-{self.dtype_name}"

    @property
    def kv_bytes(self):
        return 2 * self.batch * self.ctx * self.hkv * self.d * self.k.element_size()

    def causal_mask(self):
        """(q_len, ctx) bool: new token i sees the first ctx - q_len + i + 1 tokens; None for q_len 1."""
        if self.q_len == 1:
            return None
        return torch.ones(self.q_len, self.ctx, dtype=torch.bool, device="cuda").tril(self.ctx - self.q_len)

    def reference(self):
        """(B, q_len, Hq, d) in float64, one KV head at a time."""
        g = self.hq // self.hkv
        out = torch.empty(self.batch, self.q_len, self.hq, self.d, dtype=torch.float64, device="cuda")
        mask = self.causal_mask()
        for b in range(self.batch):
            for h in range(self.hkv):
                q = self.q[b, :, h * g:(h + 1) * g].double().reshape(self.q_len * g, self.d)  # rows (token, head)
                s = q @ self.k[b, h].double().T / math.sqrt(self.d)
                if mask is not None:
                    s = s.view(self.q_len, g, self.ctx).masked_fill(~mask[:, None, :], -math.inf).view(self.q_len * g, self.ctx)
                o = torch.softmax(s, dim=-1) @ self.v[b, h].double()
                out[b, :, h * g:(h + 1) * g] = o.view(self.q_len, g, self.d)
        return out


def leanattn_peer(strategy, device_lengths=False, staged=False):
    """A host-lengths step (the lengths passed on the host, as SDPA's dense call has them), with device_lengths the
    step that reads cache_seqlens on the device, with staged a staged step (its table staged once, before the capture)."""
    def prepare(case):
        import leanattn
        k, v = case.k.transpose(1, 2), case.v.transpose(1, 2)  # (B, N, Hkv, d) views: no copy
        plan = leanattn.DecodePlan(case.q, k, v, None, strategy=strategy, lengths="device" if device_lengths else "host")
        out = torch.empty_like(case.q)
        plan.run(case.q, k, v, case.seqlens, None, out=out, check_lengths=True)
        host_lengths = None if device_lengths or staged else case.seqlens.cpu()
        if staged:
            plan.stage(case.q, k, v, case.seqlens, None, host_seqlens=case.seqlens.cpu())

        def run():
            plan.run(case.q, k, v, case.seqlens, None, out=out, check_lengths=False, host_seqlens=host_lengths, staged=staged)
            return out

        run.poison = lambda: out.fill_(float("nan"))
        run.keep = (plan, k, v)
        return run
    return f"leanattn/{strategy}" + ("-device" if device_lengths else "-staged" if staged else ""), prepare


def sdpa_peer(backend_name):
    def prepare(case):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        import torch.nn.functional as F
        backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                   "efficient": SDPBackend.EFFICIENT_ATTENTION}[backend_name]
        q = case.q.transpose(1, 2).contiguous()  # (B, Hq, q_len, d)
        mask = case.causal_mask()
        gqa = case.hq != case.hkv

        def run():
            with sdpa_kernel([backend]):
                out = F.scaled_dot_product_attention(q, case.k, case.v, attn_mask=mask, enable_gqa=gqa)
            return out.transpose(1, 2)

        def poison():
            block = torch.full(q.shape, float("nan"), dtype=q.dtype, device=q.device)  # the allocator's next block
            del block

        run.poison = poison
        return run
    return f"sdpa/{backend_name}", prepare


PEERS = ([leanattn_peer(s) for s in ("stream-k", "auto", "no-split", "fixed-split")] + [leanattn_peer("auto", device_lengths=True)]
         + [leanattn_peer("auto", staged=True)]
         + [sdpa_peer(b) for b in ("flash", "cudnn", "efficient")])


def refusal(e):
    """A peer's refusal of a shape, in its own words (the first line)."""
    return f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def check_and_capture(rec, prepare, case, ref, timer):
    """Prepares one peer for `case`, poisons its output, checks one run against float64 `ref` and captures it in a CUDA
    graph (eagerly timed where it cannot be): returns (run, graph), or None with `rec` saying why (failed, refused)."""
    try:
        run = prepare(case)
        run.poison()
        err = rel_l2(run(), ref)
        rec["rel_l2"] = err
        if not err <= TOLERANCE[case.dtype_name]:
            rec["failed"] = f"rel. L2 {err:.3g} against float64 (tolerance {TOLERANCE[case.dtype_name]:g})"
            return None
        graph, _, _ = timer.capture(run)
        rec["method"] = "graph" if graph is not None else "eager"
        return run, graph
    except Exception as e:  # a peer that refuses the shape: recorded in its own words
        rec["refused"] = refusal(e)
        return None
    finally:
        torch.cuda.synchronize()


def time_mirrored(timer, ready, reps):
    """Times every (record, run, graph) of `ready` in two blocks of reps / 2, in order and then reversed (A B … B A), and
    puts each one's stats over both blocks into its record."""
    times = {id(rec): [] for rec, _, _ in ready}
    for block in (ready, ready[::-1]):
        for rec, run, graph in block:
            times[id(rec)] += timer.samples(run, max(reps // 2, 1), graph)
    for rec, _, _ in ready:
        rec.update(summarize(times[id(rec)]))


def measure(case, timer, reps, copy_gbps):
    """Every peer's record for one shape: each peer checked against float64 and captured first, then all timed in
    two blocks of reps / 2, the peers in one order and then the reverse (A B … B A), so that no peer pays for going
    first (cuda bench times its strategies the same way); a record's stats are over both blocks' repetitions."""
    ref = case.reference()
    ready = []  # (record, run, graph) of the peers that passed their check
    records = []
    for name, prepare in PEERS:
        rec = {"kind": "model", "shape": case.name, "model": case.model["name"], "peer": name, "batch": case.batch,
               "ctx": case.ctx, "q_len": case.q_len, "q_heads": case.hq, "kv_heads": case.hkv, "head_dim": case.d,
               "dtype": case.dtype_name, "kv_bytes": case.kv_bytes}
        records.append(rec)
        if (checked := check_and_capture(rec, prepare, case, ref, timer)) is not None:
            ready.append((rec, *checked))
    time_mirrored(timer, ready, reps)
    for rec, _, _ in ready:
        rec["floor_fraction"] = case.kv_bytes / (copy_gbps * 1e3) / rec["median_us"]
    return records


def table(records):
    """Markdown: per shape, leanattn's plans and SDPA's best, with the ratio best SDPA / auto (leanattn's own pick), and
    the summary for auto as a host-lengths step and as the step reading its lengths on the device."""
    by_shape = {}
    for r in records:
        by_shape.setdefault(r["shape"], {})[r["peer"]] = r
    lines = ["| model | B | ctx | q_len | dtype | stream-k us | auto us | no-split us | fixed-split us | auto, device lengths us | best SDPA us (backend) | SDPA / auto | floor fraction (auto) |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ratios = {"leanattn/auto": [], "leanattn/auto-device": [], "leanattn/auto-staged": []}
    for shape, peers in by_shape.items():
        any_rec = next(iter(peers.values()))
        t = lambda p: peers.get(p, {}).get("median_us")
        sdpa = [(t(p), p.split("/")[1]) for p in peers if p.startswith("sdpa/") and t(p)]
        best = min(sdpa) if sdpa else None
        sk, auto = t("leanattn/stream-k"), t("leanattn/auto")
        cell = lambda x: f"{x:.1f}" if x else "refused/failed"
        ratio = best[0] / auto if best and auto else None
        for peer, found in ratios.items():
            if best and t(peer) and any_rec["kv_bytes"] < 256 * 2**20:
                found.append(best[0] / t(peer))
        floor = peers.get("leanattn/auto", {}).get("floor_fraction")
        lines.append(f"| {any_rec['model']} | {any_rec['batch']} | {any_rec['ctx']} | {any_rec['q_len']} | {any_rec['dtype']} | {cell(sk)} | "
                     f"{cell(auto)} | {cell(t('leanattn/no-split'))} | {cell(t('leanattn/fixed-split'))} | {cell(t('leanattn/auto-device'))} | "
                     f"{f'{best[0]:.1f} ({best[1]})' if best else 'all refused'} | {f'{ratio:.2f}x' if ratio else '-'} | "
                     f"{f'{floor:.2f}' if floor else '-'} |")
    summary = []
    for peer, what in (("leanattn/auto", "auto"), ("leanattn/auto-device", "auto reading its lengths on the device"),
                       ("leanattn/auto-staged", "auto as a staged step (a graph replayed with each step's table staged)")):
        found = ratios[peer]
        if found:
            summary.append(f"Geometric mean of best SDPA / {what} over the {len(found)} shapes under 256 MiB of K+V: {geomean(found):.2f}x; "
                           f"slower than the best SDPA backend by more than 3% on {sum(r < 1 / 1.03 for r in found)} of them.")
    return "\n".join(lines) + "\n\n" + "\n".join(summary) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--models", default="", help="comma-separated names (default: every file of data/models)")
    ap.add_argument("--bf16", action="store_true", help="bf16 as well as fp16")
    ap.add_argument("--reps", type=int, default=100)
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    timer = Timer()
    copy_bytes, copy_stats = copy_bandwidth(timer)
    copy_gbps = copy_bytes / copy_stats["median_us"] / 1e3
    dtypes = ("fp16", "bf16") if a.bf16 else ("fp16",)
    records = []
    t0 = time.time()
    with open(a.out / "models.jsonl", "w") as log:
        log.write(json.dumps({"kind": "machine", "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                              "cudnn": torch.backends.cudnn.version(), "copy_gbps": copy_gbps,
                              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}) + "\n")
        for model in load_models(set(filter(None, a.models.split(",")))):
            for batch, ctx in BATCHES:
                for q_len in Q_LENS:
                    for dtype in dtypes:
                        case = Case(model, batch, ctx, q_len, dtype)
                        for rec in measure(case, timer, a.reps, copy_gbps):
                            records.append(rec)
                            log.write(json.dumps(rec) + "\n")
                            log.flush()
                        del case
                        torch.cuda.empty_cache()
                        print(f"[{time.time() - t0:5.0f} s] {model['name']} B={batch} ctx={ctx} q_len={q_len}", flush=True)
    (a.out / "models.md").write_text(table(records))
    print(table(records))


if __name__ == "__main__":
    main()

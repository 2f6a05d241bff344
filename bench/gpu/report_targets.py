"""The project's GPU targets, each judged met / not met / no data on one suite run. Speedups are ratios of two
times measured side by side in that run. Where a target compares with a peer, the report also says what an ideal
kernel would show (report_data.Run.ideal_us): a target beyond it is beyond any kernel timed this way. Standard
library only.

Units: MB and GB are 1e6 and 1e9 bytes, except "under 256 MB", read as under 256 MiB (2^28 bytes), the size of
the bench's llama3-8b-b8-8k, which the target meant to include at its edge (it is excluded: "under").
"""
from report_data import FLASHINFER, STREAM_K
from shapes import VS_CUDNN_NAMES
from stats import geomean

NOISE = 1.03
GEOMEAN_SPEEDUP, SMALL_BYTES = 1.25, 2**28
VS_CUDNN = 0.8
FLOOR_FRACTION, LARGE_BYTES = 0.97, 1e9
VS_OWN_BASELINES = 0.98
BF16_VS_FP16 = 0.03
INTERCEPT_US, SLOPE_OF_COPY = 10.0, 0.97


def _target(name, checked, failing, summary):
    met = None if not checked else not failing
    return {"name": name, "met": met, "checked": checked, "failing": failing, "summary": summary}


def _label(row):
    return f"{row.shape.name} {row.shape.dtype}"


def never_slower_than_sdpa(run):
    pairs = [(row, row.us(STREAM_K) / row.best_sdpa()[0]) for row in run.rows.values() if row.us(STREAM_K) and row.best_sdpa()]
    failing = [f"{_label(r)}: {x:.2f}x SDPA's time" for r, x in sorted(pairs, key=lambda p: -p[1]) if x > NOISE]
    worst = max(pairs, key=lambda p: p[1], default=None)
    summary = f"worst stream-k / best SDPA {worst[1]:.2f} ({_label(worst[0])})" if worst else ""
    return _target("never slower than the best SDPA backend beyond 3% (stream-k <= 1.03x its time)", len(pairs), failing, summary)


def geomean_over_sdpa(run):
    speedups = [row.best_sdpa()[0] / row.us(STREAM_K) for row in run.rows.values()
                if row.kv_bytes < SMALL_BYTES and row.us(STREAM_K) and row.best_sdpa()]
    if not speedups:
        return _target("geometric-mean speedup over the best SDPA backend >= 1.25x, shapes under 256 MiB of K+V", 0, [], "")
    g = geomean(speedups)
    failing = [] if g >= GEOMEAN_SPEEDUP else [f"geometric mean {g:.2f}x over {len(speedups)} shapes"]
    summary = f"{g:.2f}x over {len(speedups)} shapes (range {min(speedups):.2f}-{max(speedups):.2f}x)"
    ideal = [(row.best_sdpa()[0], run.ideal_us(row)) for row in run.rows.values()
             if row.kv_bytes < SMALL_BYTES and row.us(STREAM_K) and row.best_sdpa()]
    if all(us for _, us in ideal):
        summary += f"; an ideal kernel would show {geomean([sdpa / us for sdpa, us in ideal]):.2f}x"
    return _target("geometric-mean speedup over the best SDPA backend >= 1.25x, shapes under 256 MiB of K+V", len(speedups),
                   failing, summary)


def named_vs_cudnn(run):
    pairs = [(row, row.us(STREAM_K) / row.us("sdpa/cudnn")) for row in run.rows.values()
             if row.shape.name in VS_CUDNN_NAMES and row.us(STREAM_K) and row.us("sdpa/cudnn")]
    def bound(row):  # an ideal kernel's time over cuDNN's: above 0.8 no kernel can meet the target on this shape
        ideal = run.ideal_us(row)
        return f" (an ideal kernel {ideal / row.us('sdpa/cudnn'):.2f}x)" if ideal else ""
    failing = [f"{_label(r)}: {x:.2f}x cuDNN's time{bound(r)}" for r, x in pairs if x > VS_CUDNN]
    summary = ", ".join(f"{_label(r)} {x:.2f}x" for r, x in pairs)
    return _target(f"{', '.join(VS_CUDNN_NAMES)}: stream-k <= 0.8x cuDNN's time", len(pairs), failing, summary)


def floor_on_large(run):
    rows = [row for row in run.rows.values() if row.kv_bytes >= LARGE_BYTES and row.us(STREAM_K)]
    fractions = [(row, row.peers[STREAM_K]["fraction_of_floor"]) for row in rows]
    failing = [f"{_label(r)}: {f:.2f} of the floor" for r, f in fractions if f < FLOOR_FRACTION]
    summary = f"{min(f for _, f in fractions):.2f}-{max(f for _, f in fractions):.2f} of the floor" if fractions else ""
    return _target(">= 0.97 of the copy floor on every shape of 1 GB (1e9 bytes) or more", len(rows), failing, summary)


def vs_own_baselines(run):
    pairs = []
    for row in run.rows.values():
        others = [row.us(p) for p in ("leanattn/fixed-split", "leanattn/no-split") if row.us(p)]
        if row.us(STREAM_K) and others:
            pairs.append((row, min(others) / row.us(STREAM_K)))
    failing = [f"{_label(r)}: {x:.2f}x" for r, x in sorted(pairs, key=lambda p: p[1]) if x < VS_OWN_BASELINES]
    summary = f"speed over the faster of fixed-split and no-split {min(x for _, x in pairs):.2f}-{max(x for _, x in pairs):.2f}x" if pairs else ""
    return _target("stream-k >= 0.98x the speed of the faster of no-split and fixed-split", len(pairs), failing, summary)


def bf16_vs_fp16(run):
    """Each bf16 row against the fp16 row of the same problem (same batch, heads, head dim, contexts), in any section."""
    fp16 = {row.dims(): row for row in run.rows.values() if row.shape.dtype == "fp16" and row.us(STREAM_K)}
    pairs = [(row, fp16[row.dims()], row.us(STREAM_K) / fp16[row.dims()].us(STREAM_K)) for row in run.rows.values()
             if row.shape.dtype == "bf16" and row.us(STREAM_K) and row.dims() in fp16]
    label = lambda b, f: b.shape.name if b.shape.name == f.shape.name else f"{b.shape.name} (fp16: {f.shape.name})"
    failing = [f"{label(b, f)}: bf16 / fp16 {x:.3f}" for b, f, x in pairs if abs(x - 1) > BF16_VS_FP16]
    summary = f"bf16 / fp16 time {min(x for *_, x in pairs):.3f}-{max(x for *_, x in pairs):.3f} over {len(pairs)} shapes" if pairs else ""
    return _target("bf16 within 3% of fp16 (stream-k, same shape)", len(pairs), failing, summary)


def bitwise(run):
    rows = run.kinds["hash"]
    failing = [f"{h['case']} {h['peer']}: {h['identical']}/{h['runs']} identical{' (' + h['error'] + ')' if h.get('error') else ''}"
               for h in rows if h.get("error") or h["identical"] != h["runs"]]
    summary = f"{len(rows) - len(failing)}/{len(rows)} (shape, strategy) pairs identical over {max((h['runs'] for h in rows), default=0)} runs"
    return _target("results bitwise identical run to run (hash of 100 runs)", len(rows), failing, summary)


def fixed_cost(run):
    copy = run.copy_gbps()
    fits = {k: f for k, f in run.fits().items() if k[0] == STREAM_K}
    failing = []
    for (_, d, g, dt), f in sorted(fits.items()):
        bad = []
        if f["intercept_us"] > INTERCEPT_US:
            bad.append(f"intercept {f['intercept_us']:.1f} us")
        if copy and f["gbps"] < SLOPE_OF_COPY * copy:
            bad.append(f"slope {f['gbps']:.0f} GB/s = {f['gbps'] / copy:.2f} of copy")
        if bad:
            failing.append(f"d{d} group {g} {dt}: " + ", ".join(bad))
    summary = ""
    if fits:
        lo = min(f["intercept_us"] for f in fits.values())
        hi = max(f["intercept_us"] for f in fits.values())
        summary = f"intercepts {lo:.1f}-{hi:.1f} us over {len(fits)} paths"
        if copy:
            summary += f"; slopes {min(f['gbps'] for f in fits.values()) / copy:.2f}-{max(f['gbps'] for f in fits.values()) / copy:.2f} of copy"
    return _target("fixed cost on every path: intercept <= 10 us and slope >= 0.97x copy bandwidth (stream-k)", len(fits), failing, summary)


def correctness(run, sanitizer_lines=()):
    """Validations, leanattn's checks before timing and, when given, sanitize.sh's one line per tool."""
    vals = run.kinds["validate"]
    failing = [f"{v['tool']} {v['args']}: {v.get('detail', '')[:120]}" for v in vals if not v["ok"]]
    lean = [r for r in run.kinds["result"] if r["peer"].startswith("leanattn/")]
    failing += [f"{r['case']} {r['shape']['dtype']} {r['peer']}: {r.get('error', 'check failed')[:120]}" for r in lean if not r.get("ok")]
    failing += [f"compute-sanitizer {line}" for line in sanitizer_lines if line.split()[1:2] != ["clean"]]
    summary = (f"{sum(v['ok'] for v in vals)}/{len(vals)} validations, "
               f"{sum(bool(r.get('ok')) for r in lean)}/{len(lean)} leanattn checks before timing")
    if sanitizer_lines:
        summary += f", {sum(line.split()[1:2] == ['clean'] for line in sanitizer_lines)}/{len(sanitizer_lines)} sanitizer tools clean"
    return _target("still correct: every validation, every leanattn check against float64 (and every sanitizer tool given) passes",
                   len(vals) + len(lean) + len(sanitizer_lines), failing, summary)


def flashinfer_note(run):
    """Not a target: stream-k against FlashInfer where both ran (the field's reference)."""
    pairs = [row.us(FLASHINFER) / row.us(STREAM_K) for row in run.rows.values() if row.us(STREAM_K) and row.us(FLASHINFER)]
    return (f"{geomean(pairs):.2f}x geometric mean over {len(pairs)} shapes (range {min(pairs):.2f}-{max(pairs):.2f}x)") if pairs else ""


SPEED = (never_slower_than_sdpa, geomean_over_sdpa, named_vs_cudnn, floor_on_large, vs_own_baselines, bf16_vs_fp16, bitwise,
         fixed_cost)


def evaluate(run, sanitizer_lines=()):
    return [t(run) for t in SPEED] + [correctness(run, sanitizer_lines)]


def verdict(t):
    return "no data" if t["met"] is None else ("met" if t["met"] else "NOT MET")


#!/usr/bin/env python3
"""Turns a suite run into the GPU report: bench/results/gpu-decode-h100.md and its fixed-cost plot beside it.

    python3 bench/gpu/make_report.py RUN_DIR [--sanitize SANITIZE_DIR] [--run-command TEXT] [--models MODELS_DIR] [--models-kernel vN]
                                     [--md bench/results/gpu-decode-h100.md] [--svg bench/results/gpu-decode-h100-fixed-cost.svg]

RUN_DIR holds suite.jsonl or suite.jsonl.xz (bench/gpu/suite.py); SANITIZE_DIR, sanitize-summary.txt (bench/gpu/sanitize.sh).
--run-command: the command that ran the suite on the GPU machine, quoted in the report beside the suite's own command line.
--models: a folder bench/gpu/models.py wrote (models.jsonl, models.md): its table closes the report as "Every
model", with the GPU, the date and the command of that run.
The report: the machine and the commands; the targets, each met / not met with its numbers; correctness; the
fixed-cost fits per kernel path (intercept, slope, slope over copy bandwidth) and the plot; every shape with
every peer's median time, the floor, stream-k's fraction of it, the model's two terms, and stream-k's speedups
over the best SDPA backend and over FlashInfer; what was skipped or refused. Standard library only.
"""
import argparse
import json
import lzma
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import records  # noqa: E402
import report_targets  # noqa: E402
from fit import predict_us  # noqa: E402
from report_data import FLASHINFER, PEER_ORDER, STREAM_K, Run  # noqa: E402
from report_svg import fixed_cost_svg  # noqa: E402
from shapes import DTYPES  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
SECTIONS = (("targets", "Targets' named shapes"), ("bench", "bench/gpu's earlier cases"), ("ragged", "Ragged batches"),
            ("grid", "Grid: B x ctx for Llama-3-8B (32/8, d 128) and the paper's 32/32 d 64"),
            ("sweep", "Fixed-cost sweep (B=4, 8 KV heads, contexts 1k-64k)"))
SHORT = {"leanattn/stream-k": "stream-k", "leanattn/fixed-split": "fixed", "leanattn/no-split": "no-split",
         "leanattn/stream-k-paged16": "sk-paged16", "leanattn/stream-k-device": "sk-device", "sdpa/flash": "flash", "sdpa/cudnn": "cuDNN", "sdpa/efficient": "efficient",
         "flashinfer/decode": "FlashInfer"}


def lengths_sentence(run):
    """How leanattn's rows ran: host-lengths steps, with stream-k reading its lengths on the device beside them."""
    if not any("leanattn/stream-k-device" in row.peers for row in run.rows.values()):
        return ""
    return (" leanattn's stream-k, fixed and no-split columns (and sk-paged16) are host-lengths steps: the lengths are passed on "
            "the host, as SDPA's dense call has them, and the kernel finds its segments in its launch; sk-device is stream-k "
            "reading the lengths on the device at every step (a prologue kernel), the step one captured CUDA graph replays while "
            "lengths grow.")


def fmt(v, spec=".1f", none="-"):
    return none if v is None else format(v, spec)


def cell(row, peer):
    r = row.peers.get(peer)
    if r is None:
        return "-"
    if row.us(peer) is not None:
        return f"{row.us(peer):.1f}" + ("*" if r.get("method") == "eager" else "")
    if r.get("rel_l2") is not None and not r.get("ok"):
        return "wrong"
    return "refused"


def shape_table(run, rows, fits):
    peers = run.peers_present(rows)
    head = ["case", "problem", "K+V MB", "floor us"] + [SHORT[p] for p in peers] + ["sk of floor", "model: fixed + bytes us",
                                                                                   "sk vs best SDPA", "sk vs FlashInfer"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for row in sorted(rows, key=lambda r: (DTYPES.index(r.shape.dtype), r.shape.head_dim, r.shape.group, r.kv_bytes, r.shape.name)):
        s, sk = row.shape, row.us(STREAM_K)
        best = row.best_sdpa()
        fit = fits.get((STREAM_K, s.head_dim, s.group, s.dtype))
        model = "-"
        if fit:
            fixed, streamed = predict_us(fit, row.kv_bytes)
            model = f"{fixed:.1f} + {streamed:.1f}"
        cells = [s.name, s.describe(), f"{row.kv_bytes / 1e6:.0f}", f"{row.floor_us:.1f}"] + [cell(row, p) for p in peers]
        cells += [fmt(row.peers[STREAM_K].get("fraction_of_floor") if sk else None, ".2f"), model,
                  f"{best[0] / sk:.2f}x ({SHORT[best[1]]})" if sk and best else "-",
                  f"{row.us(FLASHINFER) / sk:.2f}x" if sk and row.us(FLASHINFER) else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def fits_table(run, fits):
    """One row per kernel path, one column per peer: intercept us, slope GB/s = its fraction of copy bandwidth."""
    copy = run.copy_gbps()
    peers = [p for p in PEER_ORDER if any(k[0] == p for k in fits)]
    paths = sorted({k[1:] for k in fits}, key=lambda k: (DTYPES.index(k[2]) if k[2] in DTYPES else 9, k[0], k[1]))
    lines = ["| path | " + " | ".join(SHORT[p] for p in peers) + " | lowest r² |", "|---|" + "---:|" * (len(peers) + 1)]
    for d, g, dt in paths:
        cells, r2 = [], []
        for p in peers:
            f = fits.get((p, d, g, dt))
            if f is None:
                cells.append("-")
                continue
            r2.append(f["r2"])
            cells.append(f"{f['intercept_us']:.1f} us, {f['gbps']:.0f} GB/s" + (f" = {f['gbps'] / copy:.2f}" if copy else ""))
        lines.append(f"| d{d} g{g} {dt} | " + " | ".join(cells) + f" | {min(r2):.4f} |")
    return lines


def correctness_lines(run, sanitizer_lines):
    out = []
    vals = run.kinds["validate"]
    for tool, what in (("cli", "`leanattn cuda validate`"), ("api", "leanattn.DecodePlan on every layout")):
        vs = [v for v in vals if v["tool"] == tool]
        if vs:
            worst = {}
            for v in vs:
                if v["worst_rel_l2"] is not None:
                    worst[v["dtype"]] = max(worst.get(v["dtype"], 0.0), v["worst_rel_l2"])
            layouts = sorted({v["layout"] for v in vs})
            out.append(f"- {what}: {sum(v['ok'] for v in vs)}/{len(vs)} cases passed (layouts {', '.join(layouts)}); worst rel. L2 "
                       + ", ".join(f"{k} {v:.2e}" for k, v in sorted(worst.items())) + ".")
            out += [f"  - failed: `{v['args']}`: {v.get('detail', '')[:200]}" for v in vs if not v["ok"]]
    skipped = [s for s in run.kinds["skipped"] if s["section"] == "validate"]
    if skipped:
        out.append(f"- not run: {len(skipped)} validation case(s): " + "; ".join(sorted({s['why'] for s in skipped})) + ".")
    results = run.kinds["result"]
    checked = [r for r in results if r.get("rel_l2") is not None]
    out.append(f"- every peer checked against float64 before timing: {sum(bool(r.get('ok')) for r in checked)}/{len(checked)} passed; "
               f"{sum(1 for r in results if r.get('rel_l2') is None)} refused or failed before a check (tables: refused).")
    out += [f"  - {r['case']} {r['shape']['dtype']} {r['peer']}: {r.get('error', '')[:160]}" for r in checked if not r.get("ok")]
    for h in run.kinds["hash"]:
        out.append(f"- bitwise: {h['case']} {h['peer']}: {h['identical']}/{h['runs']} outputs identical, sha256 {h['sha256'][:16]}…"
                   + (f" ({h['error']})" if h.get("error") else ""))
    if sanitizer_lines:
        out.append("- compute-sanitizer (bench/gpu/sanitize.sh): " + "; ".join(sanitizer_lines) + ".")
    return out


def problems_lines(run):
    out = []
    for s in run.kinds["skipped"]:
        if s["section"] != "validate":
            out.append(f"- skipped {s['section']} {s['case']}: {s['why']}")
    refusals = {}
    for r in run.kinds["result"]:
        if r.get("error") and r.get("rel_l2") is None:
            refusals.setdefault((r["peer"], r["error"][:160]), []).append(f"{r['case']} {r['shape']['dtype']}")
    for (peer, why), cases in sorted(refusals.items()):
        out.append(f"- {peer} refused {len(cases)} shape(s) ({', '.join(cases[:4])}{', …' if len(cases) > 4 else ''}): {why}")
    for j in run.kinds["jit"]:
        out.append(f"- {j['what']}: {'built' if j['ok'] else 'not available'} in {j['seconds']:.0f} s{(': ' + j['error'][:200]) if j['error'] else ''}")
    for n in run.kinds["note"]:
        out.append(f"- {n['text']}")
    if run.done is None:
        out.append("- the run has no `done` record: it was cut off before its end.")
    elif not run.done["completed"]:
        out.append(f"- the run stopped early after {run.done['elapsed_s']:.0f} s.")
    return out


def calibration_sentence(run):
    c = run.kinds["calibration"]
    if not c:
        return ""
    return (f" {c[0]['what'].capitalize()} measures {c[0]['median_us']:.1f} us (p10 {c[0]['p10_us']:.1f}, p90 {c[0]['p90_us']:.1f}) "
            "this way: the method's own floor, inside every time and every intercept below.")


def report(run, sanitizer_lines=(), run_command="", make_command="", svg_name=""):
    m = run.machine
    fits = run.fits()
    copy = run.copy_gbps()
    title = f"GPU decode attention, {m.get('gpu', '?')}, {str(m.get('date_utc', '?'))[:10]}"
    out = [f"# {title}", "", "```",
           f"date       {m.get('date_utc')}",
           f"GPU        {m.get('gpu')} ({m.get('sms')} SMs, L2 {fmt((m.get('l2_bytes') or 0) / 2**20, '.0f')} MiB, "
           f"{fmt((m.get('memory_bytes') or 0) / 2**30, '.0f')} GiB), driver {m.get('driver')}, max SM clock {m.get('max_sm_clock')}",
           f"software   python {m.get('python')}, torch {m.get('torch')} (CUDA {m.get('cuda')}, cuDNN {m.get('cudnn')}), "
           f"FlashInfer {m.get('flashinfer') or 'absent'}, leanattn {m.get('leanattn')} (CUDA backend: {m.get('leanattn_cuda')})",
           f"mode       {m.get('mode')}, budget {m.get('budget_s')} s" + (f", took {run.done['elapsed_s']:.0f} s" if run.done else ""),
           "```", "", "Made by:", "", "```"]
    if run_command:
        out.append(run_command)
    out += [m.get("command", "(suite command not recorded)"), make_command, "```", ""]
    timing = m.get("timing", {})
    out += [f"Timing: {timing.get('method', '?')}: per repetition a write over {fmt(timing.get('flush_bytes', 0) / 2**20, '.0f')} MiB "
            f"(at least twice the L2) and a read of as much, a {timing.get('spin_cycles')}-cycle spin on the GPU, then start event, graph replay, end "
            "event; median of at least 100 repetitions (p10/p90 in suite.jsonl). * marks a peer that could not be captured and "
            "was timed eagerly after the same flush and spin. Floor = K+V bytes / copy bandwidth; "
            f"copy bandwidth (2 GiB device-to-device, bytes read + written) {fmt(copy, '.0f')} GB/s at the start, "
            f"{fmt(run.copies.get('end', {}).get('gbps'), '.0f')} GB/s at the end. Speedups are ratios of times measured side by "
            "side in this run." + calibration_sentence(run) + lengths_sentence(run), ""]
    out += ["## Targets", "", "| target | verdict | numbers |", "|---|---|---|"]
    targets = report_targets.evaluate(run, sanitizer_lines)
    for t in targets:
        out.append(f"| {t['name']} | {report_targets.verdict(t)} | {t['summary']} |")
    for t in targets:
        if t["failing"]:
            out.append(f"\n{t['name']}, not met on: " + "; ".join(t["failing"][:12]) + (" …" if len(t["failing"]) > 12 else ""))
    fi = report_targets.flashinfer_note(run)
    out += ["", f"stream-k's speedup over FlashInfer's decode (the field's reference; not a target): {fi or 'no FlashInfer times in this run'}.", ""]
    out += ["## Correctness", ""] + correctness_lines(run, sanitizer_lines) + [""]
    out += ["## Fixed cost: time = intercept + bytes / bandwidth", "",
            "Least squares over the sweep's contexts per kernel path. A decode's time is about the intercept (what it costs "
            "whatever it reads) plus K+V bytes over the slope's bandwidth; each table below splits stream-k's time that way "
            "(model column) with the fit of its path. Each cell: intercept, slope as bandwidth = its fraction of the copy bandwidth."]
    if svg_name:
        out += ["", f"![time against K+V bytes per kernel path, with the fitted lines]({svg_name})"]
    out += [""] + (fits_table(run, fits) if fits else ["No sweep in this run."]) + [""]
    for name, heading in SECTIONS:
        rows = run.section(name)
        if rows:
            out += [f"## {heading}", ""] + shape_table(run, rows, fits) + [""]
    problems = problems_lines(run)
    if problems:
        out += ["## Skipped, refused, notes", ""] + problems + [""]
    return "\n".join(out)


def short_table(recs):
    """The few lines the suite prints last: target verdicts, the named and earlier shapes, stream-k's fits."""
    run = Run(recs)
    lines = [f"{'case':26} {'dtype':5} {'MB':>6} {'floor':>7} {'sk':>7} {'fixed':>7} {'nosplit':>7} {'bestSDPA':>8} {'FI':>7} {'of_floor':>8} {'vsSDPA':>6}"]
    order = {"targets": 0, "bench": 1, "ragged": 2}
    for row in sorted(run.section("targets") + run.section("bench") + run.section("ragged"), key=lambda r: (order[r.shape.section], DTYPES.index(r.shape.dtype))):
        sk, best = row.us(STREAM_K), row.best_sdpa()
        lines.append(f"{row.shape.name[:26]:26} {row.shape.dtype:5} {row.kv_bytes / 1e6:6.0f} {row.floor_us:7.1f} {fmt(sk):>7} "
                     f"{fmt(row.us('leanattn/fixed-split')):>7} {fmt(row.us('leanattn/no-split')):>7} {fmt(best[0] if best else None):>8} "
                     f"{fmt(row.us(FLASHINFER)):>7} {fmt(row.peers[STREAM_K].get('fraction_of_floor') if sk else None, '.2f'):>8} "
                     f"{fmt(best[0] / sk if sk and best else None, '.2f'):>6}")
    for (peer, d, g, dt), f in sorted(run.fits().items()):
        if peer == STREAM_K:
            lines.append(f"fit stream-k d{d} g{g} {dt}: intercept {f['intercept_us']:.1f} us, slope {f['gbps']:.0f} GB/s")
    for t in report_targets.evaluate(run):
        lines.append(f"target: {report_targets.verdict(t):8} {t['name'][:70]}: {t['summary'][:90]}")
    return lines


def read_sanitizer_lines(folder):
    path = pathlib.Path(folder) / "sanitize-summary.txt"
    return [line.strip() for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def models_section(folder, kernel=""):
    """The "Every model" section: bench/gpu/models.py's table, headed by the machine record of its run and, when given,
    the kernel version it ran (bench/NOTES.md's name for it)."""
    jsonl = folder / "models.jsonl"
    # Raw results committed over ~150 KB are kept xz-compressed: either form will do.
    text = jsonl.read_text() if jsonl.exists() else lzma.decompress((folder / "models.jsonl.xz").read_bytes()).decode()
    machine = json.loads(text.splitlines()[0])
    version = (f"Kernel version: {kernel} (bench/NOTES.md), which may be newer than the suite's above." if kernel else
               "Kernel version: the one named in bench/NOTES.md for that date, which may be newer than the suite's above.")
    return "\n".join([
        "## Every model (data/models): q_len 1 and 4 beside SDPA", "",
        f"{machine.get('gpu')}, {machine.get('date')}, torch {machine.get('torch')}, cuDNN {machine.get('cudnn')}, copy "
        f"{machine.get('copy_gbps', 0):.0f} GB/s. Made by `python3 bench/gpu/models.py --out DIR` (its docstring says what each "
        "peer runs; q_len 4 gives SDPA a boolean causal mask), one timing method for all (graph replay after an L2 flush, "
        "median of 100), every output checked against float64 first. " + version, "",
        (folder / "models.md").read_text()])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir")
    ap.add_argument("--sanitize", help="the folder sanitize.sh wrote (sanitize-summary.txt)")
    ap.add_argument("--run-command", default="", help="the command that ran the suite on the GPU machine, quoted in the report")
    ap.add_argument("--models", help="the folder bench/gpu/models.py wrote (models.jsonl, models.md)")
    ap.add_argument("--models-kernel", default="", help="the kernel version the models run timed, as bench/NOTES.md names it (e.g. v27)")
    ap.add_argument("--md", default=str(ROOT / "bench/results/gpu-decode-h100.md"))
    ap.add_argument("--svg", default=str(ROOT / "bench/results/gpu-decode-h100-fixed-cost.svg"))
    a = ap.parse_args(argv)
    run = Run(records.read(pathlib.Path(a.run_dir) / "suite.jsonl"))
    if not run.machine:
        ap.error(f"{a.run_dir}/suite.jsonl has no machine record: not a suite run")
    sanitizer_lines = read_sanitizer_lines(a.sanitize) if a.sanitize else []
    make_command = "python3 bench/gpu/make_report.py " + " ".join(argv if argv is not None else sys.argv[1:])
    md_path, svg_path = pathlib.Path(a.md), pathlib.Path(a.svg)
    fits = run.fits()
    svg_name = ""
    if fits:
        svg_path.write_text(fixed_cost_svg(fits, run.copy_gbps(), f"Fixed cost per kernel path, {run.machine.get('gpu')}, "
                                                                   f"{str(run.machine.get('date_utc'))[:10]}"))
        svg_name = os.path.relpath(svg_path, md_path.parent)
    text = report(run, sanitizer_lines, a.run_command, make_command, svg_name) + "\n"
    if a.models:
        text += models_section(pathlib.Path(a.models), a.models_kernel)
    md_path.write_text(text)
    print(f"wrote {md_path}" + (f" and {svg_path}" if fits else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

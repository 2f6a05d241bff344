#!/usr/bin/env python3
"""Turns what bench/gpu/run.sh wrote (bench.jsonl, peers.jsonl, validate.log, sanitizer.log, machine.txt)
into a Markdown report. usage: report.py RESULTS_DIR TITLE > report.md"""
import collections
import json
import re
import sys

from records import open_text  # raw results may be kept as FILE.xz

d, title = sys.argv[1], sys.argv[2]
machine = open_text(f"{d}/machine.txt").read().strip()
bench = [json.loads(l) for l in open_text(f"{d}/bench.jsonl") if l.startswith("{")]
peers = collections.defaultdict(dict)
for line in open_text(f"{d}/peers.jsonl"):
    if line.startswith("{"):
        r = json.loads(line)
        peers[r["case"]][r["backend"]] = r
validate = open_text(f"{d}/validate.log").read()
oks, fails = validate.count(" ok\n"), validate.count("FAILED")
worst = {}
for m in re.finditer(r"== validate .*--dtype (\w+)\n((?:(?!==).*\n)*)", validate):
    for r in re.finditer(r"rel_l2 ([0-9.e+-]+)", m.group(2)):
        worst[m.group(1)] = max(worst.get(m.group(1), 0.0), float(r.group(1)))

print(f"# {title}\n")
print("```\n" + machine + "\n```\n")
print("Made by `bench/gpu/run.sh .devbuild/leanattn $OUT` on the GPU machine (binary built here, see the README's"
      " GPU section), then `bench/gpu/report.py`.\n")
print(f"## Correctness\n\n`leanattn cuda validate`: {oks} strategy runs passed, {fails} failed, over "
      f"{validate.count('== validate')} shape × dtype cases (each run 3 times with NaN-poisoned outputs, against float64)."
      f" Worst rel. L2: " + ", ".join(f"{k} {v:.2e}" for k, v in sorted(worst.items())) + ".")
try:
    san = open_text(f"{d}/sanitizer.log").read()
    sums = re.findall(r"(ERROR SUMMARY: .*|RACECHECK SUMMARY: .*)", san)
    print("compute-sanitizer: " + "; ".join(sums) + ".")
except FileNotFoundError:
    pass
print("\n## Speed (median µs after an L2 flush; floor = K+V bytes / measured copy bandwidth)\n")
print("| case | problem | K+V MB | floor µs | stream-k µs | of floor | fixed-split µs | no-split µs | SDPA flash µs | SDPA cuDNN µs | stream-k vs best peer |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for b in bench:
    res = {r["strategy"]: r for r in b["results"]}
    p = b["problem"]
    ctx = p["ctx"]
    ctxs = str(ctx[0]) if len(set(ctx)) == 1 else "ragged " + ",".join(map(str, ctx))
    shape = f"B={p['batch']} H={p['q_heads']}/{p['kv_heads']} d={p['head_dim']} ctx={ctxs}"
    pe = peers.get(b["case"], {})
    def peer(name):
        r = pe.get(name, {})
        return f"{r['median_us']:.1f}" if "median_us" in r else ("n/a" if not r else "refused")
    times = [pe[n]["median_us"] for n in ("flash", "cudnn") if "median_us" in pe.get(n, {})]
    sk = res["stream-k"]["median_us"]
    vs = f"{min(times) / sk:.2f}x" if times else "-"
    print(f"| {b['case']} | {shape} | {b['kv_bytes'] / 1e6:.0f} | {b['floor_us']:.1f} | {sk:.1f} | {res['stream-k']['fraction_of_floor']:.2f} | "
          f"{res['fixed-split']['median_us']:.1f} | {res['no-split']['median_us']:.1f} | {peer('flash')} | {peer('cudnn')} | {vs} |")
print(f"\nCopy bandwidth measured in the same runs: {bench[0]['copy_gbps']:.0f} GB/s (bytes read + written)."
      " A fraction of floor above 1 means the kernel read K and V faster than a copy moves bytes (a read-only stream"
      " beats read+write).")

#!/usr/bin/env python3
"""Predicted against measured decode times, log-log, as one SVG (docs/calibration.md's scatter).

    python3 bench/calibration_scatter.py OUT.svg LABEL:MEASURED.jsonl[,ROUND2.jsonl]:PREDICTED.jsonl ...

MEASURED is `leanattn cuda bench --shapes` output (rounds are averaged); PREDICTED is `leanattn calibrate
--predict` output for the same shapes file, line by line. Each series gets a colour; the diagonal and the
±10% band are drawn. Standard library only.
"""
import json
import math
import statistics
import sys

COLOURS = ["#9c9c9c", "#e15759", "#4e79a7", "#59a14f"]


def read_series(spec):
    label, measured, predicted = spec.split(":")
    rounds = [[json.loads(l) for l in open(f)] for f in measured.split(",")]
    preds = [json.loads(l) for l in open(predicted)]
    points = []
    for i, p in enumerate(preds):
        for r in rounds:
            if r[i]["flags"] != p["flags"]:
                raise SystemExit(f"{predicted} line {i + 1} is not the problem of {measured}")
        for k, q in enumerate(p["results"]):
            m = statistics.mean(r[i]["results"][k]["median_us"] for r in rounds)
            points.append((m, q["predicted_us"]))
    return label, points


def main():
    out, specs = sys.argv[1], sys.argv[2:]
    series = [read_series(s) for s in specs]
    lo = min(min(m, p) for _, pts in series for m, p in pts) / 1.2
    hi = max(max(m, p) for _, pts in series for m, p in pts) * 1.2
    size, margin = 520, 60

    def xy(m, p):
        fx = (math.log(m) - math.log(lo)) / (math.log(hi) - math.log(lo))
        fy = (math.log(p) - math.log(lo)) / (math.log(hi) - math.log(lo))
        return margin + fx * size, margin + size - fy * size

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 2 * margin + 180}" height="{size + 2 * margin}" '
           'font-family="Helvetica, Arial, sans-serif">', '<rect width="100%" height="100%" fill="white"/>']
    svg.append(f'<rect x="{margin}" y="{margin}" width="{size}" height="{size}" fill="#fafafa" stroke="#cccccc"/>')
    decade = 10 ** math.floor(math.log10(lo))
    while decade <= hi:
        for mult in (1, 2, 5):
            v = decade * mult
            if lo <= v <= hi:
                x, _ = xy(v, lo)
                _, y = xy(lo, v)
                svg.append(f'<line x1="{x:.1f}" y1="{margin}" x2="{x:.1f}" y2="{margin + size}" stroke="#e6e6e6"/>')
                svg.append(f'<line x1="{margin}" y1="{y:.1f}" x2="{margin + size}" y2="{y:.1f}" stroke="#e6e6e6"/>')
                svg.append(f'<text x="{x:.1f}" y="{margin + size + 14}" font-size="10" text-anchor="middle">{v:g}</text>')
                svg.append(f'<text x="{margin - 4}" y="{y + 3:.1f}" font-size="10" text-anchor="end">{v:g}</text>')
        decade *= 10
    for factor, dash in ((1.0, ""), (1.1, ' stroke-dasharray="4 3"'), (1 / 1.1, ' stroke-dasharray="4 3"')):
        x1, y1 = xy(lo, lo * factor)
        x2, y2 = xy(hi, hi * factor)
        svg.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#555555"{dash}/>')
    svg.append(f'<clipPath id="plot"><rect x="{margin}" y="{margin}" width="{size}" height="{size}"/></clipPath>')
    for n, (label, pts) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        for m, p in pts:
            x, y = xy(m, p)
            svg.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{colour}" fill-opacity="0.75" clip-path="url(#plot)"/>')
        errors = sorted(abs(p / m - 1) for m, p in pts)
        median = errors[len(errors) // 2]
        p95 = errors[min(len(errors) - 1, int(0.95 * (len(errors) - 1) + 0.5))]
        ly = margin + 10 + 40 * n
        svg.append(f'<circle cx="{margin + size + 20}" cy="{ly}" r="4" fill="{colour}"/>')
        svg.append(f'<text x="{margin + size + 30}" y="{ly + 4}" font-size="11">{label}</text>')
        svg.append(f'<text x="{margin + size + 30}" y="{ly + 18}" font-size="10" fill="#555">{len(pts)} runs: median {100 * median:.1f}%, p95 {100 * p95:.1f}%</text>')
    svg.append(f'<text x="{margin + size / 2}" y="{margin + size + 34}" font-size="12" text-anchor="middle">measured (us, median of CUDA-graph replays)</text>')
    svg.append(f'<text x="16" y="{margin + size / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 {margin + size / 2})">predicted (us)</text>')
    svg.append(f'<text x="{margin}" y="24" font-size="13">leanattn simulate --kernel leanattn-h100: predicted against measured (dashed: ±10%)</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()

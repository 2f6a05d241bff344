"""The fixed-cost plot: per kernel path (head dim x GQA group x dtype) one panel of decode time against K+V bytes,
log-log, the measured points and each peer's fitted line time = intercept + bytes / bandwidth, with the copy floor
(bytes / copy bandwidth) dashed. On log axes the fit bends flat where the intercept dominates: the fixed cost is
where a peer's curve leaves the floor. Written by hand (no plotting library). Standard library only."""
import math
from xml.sax.saxutils import escape

from shapes import DTYPES, GROUPS, HEAD_DIMS

PLOTTED = (("leanattn/stream-k", "#1f77b4"), ("leanattn/fixed-split", "#2ca02c"), ("leanattn/no-split", "#9467bd"),
           ("sdpa/cudnn", "#d62728"), ("flashinfer/decode", "#ff7f0e"))
PANEL_W, PANEL_H, MARGIN_L, MARGIN_B, MARGIN_T, GAP = 260, 190, 48, 30, 22, 16


def _ticks(lo, hi):
    """Decades within [lo, hi], with 2 and 5 between them when fewer than three decades fall inside."""
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    ticks = [10.0 ** e for e in decades if lo <= 10.0 ** e <= hi]
    if len(ticks) < 3:
        ticks = sorted(m * 10.0 ** e for e in decades for m in (1, 2, 5) if lo <= m * 10.0 ** e <= hi)
    return ticks


def _fmt(v):
    return f"{v / 1000:g}k" if v >= 1e4 else f"{v:g}"


def panel(x0, y0, title, fits, copy_gbps, x_range, y_range):
    """One panel's SVG elements: frame, decade grid, floor, points and fit curves of the plotted peers."""
    (xlo, xhi), (ylo, yhi) = x_range, y_range
    w, h = PANEL_W - MARGIN_L, PANEL_H - MARGIN_B - MARGIN_T
    px = lambda mb: x0 + MARGIN_L + (math.log10(mb) - math.log10(xlo)) / (math.log10(xhi) - math.log10(xlo)) * w
    py = lambda us: y0 + MARGIN_T + h - (math.log10(us) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * h
    clip = f"clip{int(x0)}-{int(y0)}"
    out = [f'<g class="panel"><clipPath id="{clip}"><rect x="{x0 + MARGIN_L}" y="{y0 + MARGIN_T}" width="{w}" height="{h}"/></clipPath>',
           f'<text x="{x0 + MARGIN_L + w / 2:.1f}" y="{y0 + 14}" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
           f'<rect x="{x0 + MARGIN_L}" y="{y0 + MARGIN_T}" width="{w}" height="{h}" fill="none" stroke="#888"/>']
    for v in _ticks(xlo, xhi):
        out.append(f'<line x1="{px(v):.1f}" y1="{y0 + MARGIN_T}" x2="{px(v):.1f}" y2="{y0 + MARGIN_T + h}" stroke="#eee"/>'
                   f'<text x="{px(v):.1f}" y="{y0 + MARGIN_T + h + 12}" text-anchor="middle" font-size="9">{_fmt(v)}</text>')
    for v in _ticks(ylo, yhi):
        out.append(f'<line x1="{x0 + MARGIN_L}" y1="{py(v):.1f}" x2="{x0 + MARGIN_L + w}" y2="{py(v):.1f}" stroke="#eee"/>'
                   f'<text x="{x0 + MARGIN_L - 4}" y="{py(v) + 3:.1f}" text-anchor="end" font-size="9">{_fmt(v)}</text>')
    xs = [xlo * (xhi / xlo) ** (i / 40) for i in range(41)]
    if copy_gbps:
        floor = [(x, x * 1e6 / (copy_gbps * 1e3)) for x in xs]
        out.append(_polyline(floor, px, py, "#999", f'stroke-dasharray="4 3" class="floor" clip-path="url(#{clip})"'))
    for peer, color in PLOTTED:
        f = fits.get(peer)
        if not f:
            continue
        curve = [(x, f["intercept_us"] + x * 1e6 / (f["gbps"] * 1e3)) for x in xs]
        out.append(_polyline(curve, px, py, color, f'class="fit" data-peer="{escape(peer)}" clip-path="url(#{clip})"'))
        for b, us in f["data"]:
            out.append(f'<circle cx="{px(b / 1e6):.1f}" cy="{py(us):.1f}" r="2.5" fill="{color}"><title>{escape(peer)}: '
                       f'{b / 1e6:.1f} MB, {us:.1f} us</title></circle>')
    out.append("</g>")
    return out


def _polyline(points, px, py, color, attrs):
    pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points if y > 0)
    return f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5" {attrs}/>'


def fixed_cost_svg(fits, copy_gbps, title):
    """fits: {(peer, head_dim, group, dtype): fit with "data" [(bytes, us)]} -> the SVG document."""
    columns = [(d, dt) for d in HEAD_DIMS for dt in DTYPES]
    xs = [b / 1e6 for f in fits.values() for b, _ in f["data"]] or [1.0, 10.0]
    ys = [us for f in fits.values() for _, us in f["data"]] or [1.0, 10.0]
    x_range = (min(xs) / 1.4, max(xs) * 1.4)
    y_range = (min(ys) / 1.6, max(ys) * 1.4)
    width = len(columns) * (PANEL_W + GAP) + GAP
    height = len(GROUPS) * (PANEL_H + GAP) + 70
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{GAP}" y="18" font-size="14" font-weight="bold">{escape(title)}</text>',
           f'<text x="{GAP}" y="34">x: K+V MB (log), y: us per decode (log); points measured, lines fitted '
           f'(time = intercept + bytes / bandwidth); dashed: bytes / copy bandwidth</text>']
    lx = GAP
    for peer, color in PLOTTED:
        out.append(f'<rect x="{lx}" y="42" width="12" height="4" fill="{color}"/><text x="{lx + 16}" y="48">{escape(peer)}</text>')
        lx += 16 + 7 * len(peer) + 14
    for row, g in enumerate(GROUPS):
        for col, (d, dt) in enumerate(columns):
            panel_fits = {peer: f for (peer, fd, fg, fdt), f in fits.items() if (fd, fg, fdt) == (d, g, dt)}
            out += panel(GAP + col * (PANEL_W + GAP), 56 + row * (PANEL_H + GAP), f"d {d}, group {g}, {dt}", panel_fits, copy_gbps,
                         x_range, y_range)
    out.append("</svg>")
    return "\n".join(out) + "\n"

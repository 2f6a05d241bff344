"""The fixed-cost model of a decode: time = intercept + bytes / bandwidth, fitted by least squares.

intercept (us) is what a decode costs whatever it reads: launch, prologue, pipeline fill, epilogue, merges.
bandwidth (GB/s, 1e9 bytes) is the slope's inverse: how fast the bytes stream once it runs. Standard library only.
"""
import math


class FitError(ValueError):
    """Too few points, or all at one size: no line through them."""


def fit_line(points):
    """points: [(kv_bytes, time_us)] -> dict(intercept_us, gbps, r2, points, max_rel_residual).

    Ordinary least squares of time on bytes. r2 = 1 - residual / total sum of squares. max_rel_residual is the
    largest |time - model| / time: a point far off the line says the model does not hold there."""
    pts = [(float(x), float(y)) for x, y in points]
    if len(pts) < 2:
        raise FitError(f"need at least 2 points, got {len(pts)}")
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        raise FitError("every point has the same byte count")
    sxy = sum((x - mx) * (y - my) for x, y in pts)
    slope = sxy / sxx  # us per byte
    intercept = my - slope * mx
    ss_res = sum((y - intercept - slope * x) ** 2 for x, y in pts)
    ss_tot = sum((y - my) ** 2 for _, y in pts)
    return {
        "intercept_us": intercept,
        "gbps": (1e-3 / slope) if slope > 0 else math.inf,  # bytes/us -> GB/s: 1 byte/us = 1e-3 GB/s
        "r2": 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0,
        "points": n,
        "max_rel_residual": max(abs(y - intercept - slope * x) / y for x, y in pts if y > 0),
    }


def predict_us(fit, kv_bytes):
    """The model's time for a byte count: (fixed term, byte term) in us."""
    return fit["intercept_us"], kv_bytes / (fit["gbps"] * 1e3)

"""Summaries of repeated timings: median, 10th and 90th percentiles; the geometric mean. Standard library only."""
import math


def percentile(sorted_values, q):
    """Linear interpolation between the closest ranks (numpy's default), q in [0, 1]."""
    if not sorted_values:
        raise ValueError("no values")
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(times_us):
    """{median_us, p10_us, p90_us, reps} of a list of times in microseconds."""
    s = sorted(times_us)
    return {"median_us": percentile(s, 0.5), "p10_us": percentile(s, 0.1), "p90_us": percentile(s, 0.9), "reps": len(s)}


def geomean(values):
    values = list(values)
    if not values:
        raise ValueError("no values")
    return math.exp(sum(math.log(v) for v in values) / len(values))

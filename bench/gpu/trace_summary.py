#!/usr/bin/env python3
"""Where a decode kernel's time goes, from a per-CTA trace (`leanattn cuda bench --trace FILE`, docs/trace.md).

    python3 bench/gpu/trace_summary.py trace.json [more.json ...]

Per strategy: the makespan; how late the last CTA started; before the first copy, a CTA's wait for the live plan,
the staging of its arrays and the walker's set-up (traces that carry these marks); streaming per segment (median, slowest) and the
rate per CTA; the streams as a whole (their window from the first start to the last end, the K and V bytes they read
over it, how many CTAs streamed on average); the end of a segment by role (a partial's merge and store, a host's wait for its peers and its
merge after the wait, a lone output's store; in a host-lengths step's shared merge, each contributor's partial and
arrival, its wait for the last arrival and its merge of its rows); and the critical path's tail: from the last streaming end
anywhere to the makespan. Times in us.
"""
import json
import statistics
import sys

from records import open_text  # raw results may be kept as FILE.xz


def us(ns):
    return ns / 1000.0


def spans(segments, role, key):
    return [s[key][1] - s[key][0] for s in segments if s["role"] == role and s.get(key)]


def describe(values):
    if not values:
        return "-"
    values = sorted(values)
    return f"median {us(statistics.median(values)):6.2f}  max {us(values[-1]):6.2f}  (n {len(values)})"


def streams_together(segs, seg_bytes):
    """(window ns, bytes, mean CTAs streaming over the window) of the segments' streams."""
    first, last = min(s["stream"][0] for s in segs), max(s["stream"][1] for s in segs)
    busy = sum(s["stream"][1] - s["stream"][0] for s in segs)  # a CTA streams one segment at a time
    window = last - first
    return window, sum(seg_bytes(s) for s in segs), busy / window if window > 0 else 0.0


def summarize(doc):
    p = doc["problem"]
    lines = [f"{doc['device']['name']}: batch {p['batch']}, heads {p['q_heads']}/{p['kv_heads']}, d {p['head_dim']}, "
             f"ctx {p['ctx'][0]}{'..' if len(set(p['ctx'])) > 1 else ''}, tile {p['tile']}, {doc['dtype']}, {doc['layout']}"
             + (f", lengths on the {doc['lengths']}" if "lengths" in doc else "")]
    bytes_per_token = 2 * p["head_dim"] * 2  # K and V of one KV head: a segment is one output tile
    for k in doc["kernels"]:
        ctas = [c for c in k["ctas"] if c["segments"]]
        segs = [s for c in ctas for s in c["segments"]]
        starts = sorted(c["start"] for c in ctas)
        stream = [s["stream"][1] - s["stream"][0] for s in segs]
        last_stream_end = max(s["stream"][1] for s in segs)
        def seg_bytes(s):
            return (min(s["end"] * p["tile"], p["ctx"][s["batch"]]) - s["begin"] * p["tile"]) * bytes_per_token

        rate = []
        for c in ctas:
            busy = sum(s["stream"][1] - s["stream"][0] for s in c["segments"])
            if busy > 0:
                rate.append(sum(seg_bytes(s) for s in c["segments"]) / busy)  # bytes per ns = GB/s
        window, streamed, streaming = streams_together(segs, seg_bytes)
        before_first_copy = []
        if all("plan_wait" in c for c in ctas):  # older traces have no plan marks
            before_first_copy = [
                f"    before the first copy   wait for the plan {describe([c['plan_wait'] - c['start'] for c in ctas])}",
                f"                            staging           {describe([c['plan_ready'] - c['plan_wait'] for c in ctas])}",
                f"                            walker set-up     {describe([c['segments'][0]['stream'][0] - c['plan_ready'] for c in ctas])}",
            ]
        after_wait = [s["merge_store"][1] - s["wait"][1] for s in segs if s["role"] == "reduce" and s.get("wait")]
        before_wait = [s["wait"][0] - s["merge_store"][0] for s in segs if s["role"] == "reduce" and s.get("wait")]
        shared = [s for s in segs if s["role"] == "shared" and s.get("wait")]  # host-lengths steps' shared merges
        lines += [
            f"  {k['strategy']:<12} grid {k['grid']:4d}  makespan {us(k['makespan']):8.2f}  last CTA start {us(starts[-1]):5.2f}  "
            f"tail after the last stream end {us(k['makespan'] - last_stream_end):5.2f}",
            *before_first_copy,
            f"    stream per segment      {describe(stream)}   per-CTA rate median {statistics.median(rate):5.1f} GB/s" if rate else "",
            f"    streams together        window {us(window):6.2f}, {streamed / 1e6:7.1f} MB of K and V at "
            f"{streamed / window / 1e3 if window > 0 else 0.0:5.2f} TB/s, {streaming:5.1f} CTAs streaming on average",
            f"    partial: merge+store    {describe(spans(segs, 'partial', 'merge_store'))}",
            f"    reduce: before the wait {describe(before_wait)}",
            f"    reduce: wait            {describe(spans(segs, 'reduce', 'wait'))}",
            f"    reduce: after the wait  {describe(after_wait)}",
            f"    store (lone output)     {describe(spans(segs, 'store', 'merge_store'))}",
        ]
        if shared:
            lines += [
                f"    shared: partial+arrival {describe([s['wait'][0] - s['merge_store'][0] for s in shared])}",
                f"    shared: wait            {describe([s['wait'][1] - s['wait'][0] for s in shared])}",
                f"    shared: merge its rows  {describe([s['merge_store'][1] - s['wait'][1] for s in shared])}",
            ]
    return "\n".join(line for line in lines if line)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    for path in argv[1:]:
        with open_text(path) as f:
            print(summarize(json.load(f)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

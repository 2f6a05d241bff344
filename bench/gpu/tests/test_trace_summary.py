"""trace_summary.py on a made-up two-CTA trace: the streams taken together (their window, the K and V bytes they read
over it and how many CTAs streamed on average) come out of the segments' token ranges and stream marks."""
from trace_summary import summarize


def trace():
    # 2 requests of 256 tokens, d 64, LeanTiles of 128: each CTA streams one request (2 LeanTiles, 256 tokens x 256 B).
    segment = {"output": 0, "kv_head": 0, "begin": 0, "end": 2, "host": True, "finishing": True, "role": "store",
               "merge_store": [0, 0]}
    ctas = [
        {"cta": 0, "sm": 0, "start": 0, "end": 5000, "segments": [dict(segment, batch=0, stream=[1000, 4000], merge_store=[4000, 4500])]},
        {"cta": 1, "sm": 1, "start": 0, "end": 6000, "segments": [dict(segment, batch=1, begin=2, end=4, stream=[2000, 5000], merge_store=[5000, 5500])]},
    ]
    return {"device": {"name": "made-up GPU"}, "dtype": "fp16", "layout": "padded",
            "problem": {"batch": 2, "q_heads": 1, "kv_heads": 1, "head_dim": 64, "q_len": 1, "ctx": [256, 512], "tile": 128},
            "kernels": [{"strategy": "no-split", "grid": 2, "total_tiles": 4, "makespan": 6000, "ctas": ctas}]}


def test_streams_together():
    line = next(l for l in summarize(trace()).splitlines() if "streams together" in l)
    # Window 1000..5000 ns = 4 us; 2 x 256 tokens x 256 B = 131072 B = 0.1 MB over 4000 ns = 0.03 TB/s; busy 3000 + 3000
    # ns over the 4000: 1.5 CTAs streaming on average.
    assert "window   4.00" in line
    assert "0.1 MB" in line
    assert "0.03 TB/s" in line
    assert "1.5 CTAs streaming on average" in line


def test_a_shared_merge_splits_into_arrival_wait_and_merge():
    # Both CTAs contribute to one output and merge it together: partial stored and arrival counted by 4500 and 5200,
    # both see the last arrival at 5400, and merge their rows until 5800 and 6000.
    t = trace()
    shared = {"role": "shared", "host": False, "finishing": True}
    t["kernels"][0]["ctas"][0]["segments"][0].update(shared, host=True, finishing=False, merge_store=[4000, 5800], wait=[4500, 5400])
    t["kernels"][0]["ctas"][1]["segments"][0].update(shared, merge_store=[5000, 6000], wait=[5200, 5400])
    lines = summarize(t).splitlines()
    line = lambda what: next(l for l in lines if what in l)
    assert "median   0.35  max   0.50  (n 2)" in line("shared: partial+arrival")
    assert "median   0.55  max   0.90  (n 2)" in line("shared: wait")
    assert "median   0.50  max   0.60  (n 2)" in line("shared: merge its rows")
    assert "reduce: after the wait  -" in line("reduce: after the wait")  # a shared merge is not a host's

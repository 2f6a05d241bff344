"""The arithmetic the report rests on: the least-squares fit, percentiles, the time budget, the JSONL records."""
import math

import pytest

import records
import shapes
from budget import Budget
from fit import FitError, fit_line, predict_us
from stats import geomean, percentile, summarize


def test_a_line_through_exact_points_is_recovered():
    pts = [(b, 21.5 + b / (2950.0 * 1e3)) for b in (16e6, 64e6, 256e6, 1e9, 4e9)]
    f = fit_line(pts)
    assert f["intercept_us"] == pytest.approx(21.5, rel=1e-9) and f["gbps"] == pytest.approx(2950.0, rel=1e-9)
    assert f["r2"] == pytest.approx(1.0) and f["max_rel_residual"] < 1e-9
    fixed, streamed = predict_us(f, 1e9)
    assert fixed == pytest.approx(21.5) and streamed == pytest.approx(1e9 / 2.95e12 * 1e6)


def test_noise_lowers_r2_and_shows_in_the_worst_residual():
    pts = [(1e8, 50.0), (2e8, 80.0), (4e8, 130.0), (8e8, 300.0)]
    f = fit_line(pts)
    assert f["r2"] < 1.0 and f["max_rel_residual"] > 0.05


def test_a_fit_needs_two_distinct_sizes():
    with pytest.raises(FitError):
        fit_line([(1e8, 10.0)])
    with pytest.raises(FitError):
        fit_line([(1e8, 10.0), (1e8, 12.0)])


def test_percentiles_interpolate_between_ranks():
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 0.5) == pytest.approx(50.5)
    assert percentile(values, 0.1) == pytest.approx(10.9)
    s = summarize([3.0, 1.0, 2.0])
    assert (s["median_us"], s["p10_us"], s["p90_us"], s["reps"]) == (2.0, pytest.approx(1.2), pytest.approx(2.8), 3)
    assert geomean([1.0, 4.0]) == pytest.approx(2.0)


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_the_budget_refuses_work_that_would_overrun_and_learns_from_slow_work():
    clock = Clock()
    b = Budget(100.0, reserve_s=10.0, clock=clock)
    assert b.allows(89.0) and not b.allows(91.0)
    clock.t = 50.0
    assert b.remaining() == pytest.approx(40.0) and not b.allows(41.0)
    b.record(10.0, 20.0)  # took twice the estimate
    assert b.factor() == pytest.approx(2.0)
    assert b.allows(19.0) and not b.allows(21.0)
    b2 = Budget(100.0, clock=Clock())
    b2.record(2.0, 8.0)  # too little work seen to learn from
    assert b2.factor() == 1.0


def test_records_survive_a_torn_last_line(tmp_path):
    path = tmp_path / "suite.jsonl"
    w = records.Writer(path)
    shape = shapes.targets(("fp16",))[0]
    w.write(records.result(shape, "leanattn/stream-k", 3000.0, "graph", 1e-4, True, summarize([10.0, 11.0, 12.0])))
    w.write(records.skipped("grid", "grid-x", "time budget"))
    w.close()
    with open(path, "a") as f:
        f.write('{"kind": "result", "case": "cut')
    got = records.read(path)
    assert [r["kind"] for r in got] == ["result", "skipped"]
    r = got[0]
    assert r["floor_us"] == pytest.approx(shape.kv_bytes / 3e12 * 1e6)
    assert r["fraction_of_floor"] == pytest.approx(r["floor_us"] / 11.0) and r["gbps"] == pytest.approx(shape.kv_bytes / 11e-6 / 1e9)
    assert shapes.shape_from_dict(r["shape"]) == shape
    assert not math.isnan(r["p90_us"])

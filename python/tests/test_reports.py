"""leanattn.schedule and leanattn.simulate return the CLI's JSON as dicts."""
import json
import pathlib

import pytest

import leanattn

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"


def test_figure1_is_the_golden_plan():
    plan = leanattn.schedule(batch=1, heads=2, head_dim=64, ctx=1280, device="paper-5sm", stream_k_rule="paper")
    golden = json.loads((DATA / "figures" / "figure1-stream-k.json").read_text())
    assert plan == golden


def test_simulate_gives_every_strategy_with_the_documented_keys():
    result = leanattn.simulate(batch=6, heads=48, head_dim=64, ctx=65536)
    assert [r["strategy"] for r in result["results"]] == ["stream-k", "fixed-split", "no-split"]
    for r in result["results"]:
        for key in ("grid", "launches", "makespan_us", "occupancy", "idle_sm_fraction"):
            assert key in r
        assert r["makespan_us"] > 0


def test_a_ragged_batch_and_a_plan_of_one_strategy():
    plan = leanattn.schedule(batch=3, heads=32, kv_heads=8, ctx=[1000, 70000, 300], strategy="fixed-split")
    assert plan["strategy"] == "fixed-split" and plan["problem"]["ctx"] == [1000, 70000, 300]


@pytest.mark.parametrize("kwargs,word", [
    (dict(heads=32, kv_heads=5), "kv"),
    (dict(ctx=[1, 2]), "ctx"),
    (dict(device="no-such-gpu"), "device"),
    (dict(strategy="fastest"), "strategy"),
    (dict(head_dim=0), "head"),
])
def test_bad_problems_raise_value_errors(kwargs, word):
    with pytest.raises(ValueError) as info:
        leanattn.schedule(**kwargs)
    assert word in str(info.value)


def test_auto_refuses_at_once_a_problem_too_large_to_weigh(monkeypatch):
    # Weighing builds and plays every candidate plan: its memory is estimated, and refused, before any is made.
    monkeypatch.setenv("LEANATTN_MAX_MEMORY", "1G")
    with pytest.raises(ValueError, match="the plan auto keeps while it weighs"):
        leanattn.schedule(batch=4_000_000, heads=8, ctx=1, strategy="auto")
    with pytest.raises(ValueError, match="the plan auto keeps while it weighs"):
        leanattn.simulate(batch=4_000_000, heads=8, ctx=1, strategy="auto", plan_for="capacity")


@pytest.mark.parametrize("kwargs,error", [
    (dict(batch=2**64 + 1), ValueError),   # ctypes alone would wrap it to 1
    (dict(heads="32"), TypeError),
    (dict(batch=True), TypeError),
    (dict(device=5), TypeError),
    (dict(device="h100\0sxm"), ValueError),
    (dict(ctx=3.5), TypeError),
])
def test_arguments_are_checked_before_they_reach_c(kwargs, error):
    with pytest.raises(error):
        leanattn.schedule(**kwargs)

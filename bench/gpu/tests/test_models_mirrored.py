"""models.measure on the CPU with stand-in peers and timer: every peer that matched float64 is timed in two blocks,
the peers in one order then the reverse, its stats over both blocks; a wrong peer and a refusing one are recorded and
never timed."""
import pytest

torch = pytest.importorskip("torch")

import models  # noqa: E402


class Case:
    name, model, batch, ctx, q_len, hq, hkv, d, dtype_name, kv_bytes = "tiny", {"name": "tiny"}, 1, 8, 1, 2, 1, 4, "fp16", 3000

    def reference(self):
        return torch.arange(8, dtype=torch.float64)


class Timer:
    def __init__(self):
        self.order = []

    def capture(self, run):
        return None, None, ""

    def samples(self, run, reps, graph=None):
        self.order.append(run.peer)
        block = sum(1 for p in self.order if p == run.peer)  # this peer's first or second block
        return [run.us + block] * reps  # the second block 1 us slower than the first


def peer(name, us, wrong=False, refuse=False):
    def prepare(case):
        if refuse:
            raise ValueError(f"{name} does not take this shape")
        out = case.reference().to(torch.float16) * (2 if wrong else 1)

        def run():
            return out
        run.poison, run.peer, run.us = (lambda: None), name, us
        return run
    return name, prepare


def test_peers_are_timed_in_mirrored_blocks_and_summarized_over_both(monkeypatch):
    monkeypatch.setattr(models, "PEERS", [peer("a", 10.0), peer("wrong", 5.0, wrong=True), peer("b", 20.0),
                                          peer("refuses", 1.0, refuse=True), peer("c", 30.0)])
    monkeypatch.setattr(models.torch.cuda, "synchronize", lambda: None)
    timer = Timer()
    records = {r["peer"]: r for r in models.measure(Case(), timer, 100, 1.0)}
    assert timer.order == ["a", "b", "c", "c", "b", "a"]
    assert records["a"]["reps"] == 100 and records["b"]["reps"] == 100
    assert 11.0 <= records["a"]["median_us"] <= 12.0 and 21.0 <= records["b"]["median_us"] <= 22.0
    assert records["a"]["p10_us"] == 11.0 and records["a"]["p90_us"] == 12.0  # both blocks' repetitions
    assert "failed" in records["wrong"] and "median_us" not in records["wrong"]
    assert "ValueError" in records["refuses"]["refused"] and "median_us" not in records["refuses"]
    assert list(records) == ["a", "wrong", "b", "refuses", "c"]  # one record per peer, in PEERS' order


def test_ragged_live_measures_its_peers_the_same_way_and_records_each_plan(monkeypatch):
    import ragged_live

    class RaggedCase(Case):
        draw, live, live_bytes = 1, torch.tensor([5]), 100

    def planned(name, us, strategy):
        name, prepare = peer(name, us)

        def with_plan(case):
            run = prepare(case)
            run.plan = {"strategy": strategy, "grid": 4, "launches": 1, "ctas": []}
            return run
        return name, with_plan

    monkeypatch.setattr(ragged_live, "PEERS", [planned("auto", 10.0, "stream-k"), peer("wrong", 5.0, wrong=True)])
    monkeypatch.setattr(ragged_live, "cudnn_peer", peer("sdpa", 20.0)[1])
    monkeypatch.setattr(models.torch.cuda, "synchronize", lambda: None)
    timer = Timer()
    records = {r["peer"]: r for r in ragged_live.measure(RaggedCase(), timer, 10)}
    assert timer.order == ["auto", "sdpa", "sdpa", "auto"]
    assert records["auto"]["plan"] == {"strategy": "stream-k", "grid": 4, "launches": 1}
    assert records["auto"]["live"] == [5] and records["auto"]["median_us"] >= 11.0
    assert "failed" in records["wrong"] and "median_us" not in records["wrong"]

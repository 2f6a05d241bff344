"""measure.measure's decisions with stand-in peers and a stand-in timer on the CPU: a peer is timed only after it
matched float64; a wrong one is reported with its error and never timed; a refusal is recorded in its own words;
FlashInfer's fallback to a contiguous copy is taken when the view gives a wrong answer; an op that cannot be
captured is timed eagerly and says so."""
import pytest

torch = pytest.importorskip("torch")

import inputs  # noqa: E402
import measure  # noqa: E402
import shapes  # noqa: E402
from stats import summarize  # noqa: E402

SHAPE = shapes.Shape("tiny", 2, 4, 2, 64, (20, 7), "fp16", "targets")


class FakeTimer:
    def __init__(self, capturable=True):
        self.capturable, self.timed = capturable, []

    def capture(self, fn):
        if not self.capturable:
            return None, None, "RuntimeError: operation not permitted when stream is capturing"
        out = fn()

        class Graph:
            def replay(self):
                fn()
        return Graph(), out, ""

    def time(self, fn, reps, graph=None):
        self.timed.append(reps)
        return summarize([10.0] * reps)


def make_run(output):
    buf = torch.empty_like(output)

    def run():
        buf.copy_(output)
        return buf

    run.poison = lambda: buf.fill_(float("nan"))
    return run


class Peer:
    def __init__(self, name, result=None, refuse=None, copy_result=None):
        self.name, self.result, self.refuse = name, result, refuse
        if copy_result is not None:
            def prepare_copy(inp):
                run = make_run(copy_result)
                run.note = "contiguous paged copy of K and V"
                return run
            self.prepare_copy = prepare_copy

    def prepare(self, inp):
        if self.refuse:
            raise RuntimeError(self.refuse)
        return make_run(self.result)


@pytest.fixture(scope="module")
def case():
    inp = inputs.Inputs(SHAPE, device="cpu")
    ref = inp.reference()
    return inp, ref, ref.to(torch.float16), (ref * 1.5).to(torch.float16)


def test_a_peer_that_matches_float64_is_timed_with_at_least_100_repetitions(case):
    inp, ref, right, _ = case
    timer = FakeTimer()
    r = measure.measure(Peer("leanattn/stream-k", right), inp, ref, timer, 3000.0)
    assert r["ok"] and r["method"] == "graph" and r["median_us"] == 10.0 and r["replay_rel_l2"] < 1e-3
    assert timer.timed and timer.timed[0] >= 100


def test_a_wrong_peer_is_reported_and_never_timed(case):
    inp, ref, _, wrong = case
    timer = FakeTimer()
    r = measure.measure(Peer("sdpa/flash", wrong), inp, ref, timer, 3000.0)
    assert r["ok"] is False and "over tolerance" in r["error"] and "median_us" not in r and not timer.timed


def test_a_refusal_is_recorded_in_the_peers_own_words(case):
    inp, ref, _, _ = case
    r = measure.measure(Peer("sdpa/flash", refuse="No available kernel. Aborting execution."), inp, ref, FakeTimer(), 3000.0)
    assert r["error"] == "RuntimeError: No available kernel. Aborting execution." and r["rel_l2"] is None


def test_a_wrong_view_falls_back_to_the_contiguous_copy(case):
    inp, ref, right, wrong = case
    r = measure.measure(Peer("flashinfer/decode", wrong, copy_result=right), inp, ref, FakeTimer(), 3000.0)
    assert r["ok"] and "contiguous paged copy" in r["note"] and "the view gave rel L2" in r["note"]


def test_an_op_that_cannot_be_captured_is_timed_eagerly_and_says_so(case):
    inp, ref, right, _ = case
    r = measure.measure(Peer("sdpa/cudnn", right), inp, ref, FakeTimer(capturable=False), 3000.0)
    assert r["ok"] and r["method"] == "eager" and "not capturable" in r["note"]


def test_a_peer_that_leaves_its_output_unwritten_fails_on_the_poison(case):
    inp, ref, right, _ = case
    stale = right.clone()  # a correct result from an earlier run, which this peer no longer writes

    class Lazy:
        name = "leanattn/no-split"

        def prepare(self, _):
            run = lambda: stale  # noqa: E731
            run.poison = lambda: stale.fill_(float("nan"))
            return run

    r = measure.measure(Lazy(), inp, ref, FakeTimer(), 3000.0)
    assert r["ok"] is False and r["rel_l2"] == float("inf")

"""suite.main from start to end on the CPU: the GPU-only parts (the machine query, CUDA-graph timing, the copy
bandwidth) stood in, everything else real: tiny shapes of every section, leanattn's plans on CPU tensors through
the same C ABI, SDPA as this torch offers it, the real leanattn binary for the CLI cases (which refuses without a
GPU), the records, the budget and the report. What it catches is the orchestration: every section runs in order,
writes its records, and a refusal never stops the run."""
import pathlib
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "python"))
leanattn = pytest.importorskip("leanattn")

import inputs  # noqa: E402
import make_report  # noqa: E402
import measure  # noqa: E402
import records  # noqa: E402
import shapes  # noqa: E402
import suite  # noqa: E402
import timing  # noqa: E402
from stats import summarize  # noqa: E402

BINARY = pathlib.Path(__file__).resolve().parents[3] / "build" / "apps" / "leanattn"
TINY = [
    shapes.Shape("tiny-mha", 2, 4, 4, 64, (300, 300), "fp16", "targets"),
    shapes.Shape("tiny-ragged", 3, 8, 2, 128, (500, 1, 257), "bf16", "ragged"),
] + [shapes.Shape(f"tiny-sweep-{n}", 2, 4, 2, 64, (n, n), "fp16", "sweep") for n in (128, 256, 512)]


class StandInTimer:
    """Times nothing: every op 'takes' a time that grows with its K+V bytes, as the fit expects."""

    def __init__(self, device=None):
        pass

    def describe(self):
        return {"method": "stand-in", "flush_bytes": 0, "spin_cycles": 0}

    @staticmethod
    def capture(fn):
        out = fn()

        class Graph:
            replay = staticmethod(fn)
        return Graph(), out, ""

    def time(self, fn, reps, graph=None):
        (graph.replay if graph else fn)()
        return summarize([12.5] * reps)


@pytest.fixture
def stand_ins(monkeypatch):
    monkeypatch.setattr(inputs, "DEVICE", "cpu")
    monkeypatch.setattr(leanattn, "has_cuda", lambda: True)  # the CPU executor behind the same DecodePlan
    monkeypatch.setattr(timing, "Timer", StandInTimer)
    monkeypatch.setattr(measure, "Timer", StandInTimer)
    monkeypatch.setattr(timing, "copy_bandwidth", lambda timer: (2 * 2**31, summarize([1431.0] * 100)))
    monkeypatch.setattr(timing, "one_tiny_kernel", lambda timer: summarize([4.0] * 300))
    monkeypatch.setattr(suite, "machine_record", lambda a, torch_module, lean, fi: records.machine(
        date_utc="2026-12-01 10:00:00 UTC", gpu="stand-in", driver="-", sms=4, python="3", torch=torch_module.__version__,
        command="suite.py (test)", mode="full", budget_s=a.budget_s, **lean, **fi))
    monkeypatch.setattr(shapes, "suite_shapes", lambda quick=False: TINY)
    monkeypatch.setattr(shapes, "hash_shapes", lambda: TINY[:1])
    monkeypatch.setattr(shapes, "api_validate_cases", lambda quick=False: [
        (shapes.Shape("api-paged", 2, 4, 2, 64, (300, 17), "fp16", "api"), "paged", 16),
        (shapes.Shape("api-tm", 2, 8, 2, 128, (40, 300), "bf16", "api"), "token-major", 0)])
    monkeypatch.setattr(shapes, "validate_cases", lambda quick=False: [
        shapes.ValidateCase(shapes.small_problem(64, 1), "fp16"), shapes.ValidateCase(shapes.small_problem(64, 1), "fp16", "paged", 16)])


def test_every_section_runs_and_writes_its_records(tmp_path, stand_ins):
    if not BINARY.exists():
        pytest.skip("no leanattn binary in build/")
    out = tmp_path / "run"
    assert suite.main(["--out", str(out), "--flashinfer", "off", "--leanattn-bin", str(BINARY)]) == 0
    recs = records.read(out / "suite.jsonl")
    kinds = [r["kind"] for r in recs]
    assert kinds[0] == "machine" and kinds[-1] == "done" and recs[-1]["completed"] is True
    assert [r["when"] for r in recs if r["kind"] == "copy"] == ["start", "end"]
    assert any(r["kind"] == "calibration" for r in recs)
    cli = [r for r in recs if r["kind"] == "validate" and r["tool"] == "cli"]
    assert cli and all(r["ok"] is False and r["rc"] != 0 for r in cli)  # no GPU here: the binary refuses, the run goes on
    api = [r for r in recs if r["kind"] == "validate" and r["tool"] == "api"]
    assert [r["ok"] for r in api] == [True, True] and all(r["worst_rel_l2"] < 8e-3 for r in api)
    hashes = [r for r in recs if r["kind"] == "hash"]
    assert len(hashes) == 3 and all(h["identical"] == h["runs"] == 100 and len(h["sha256"]) == 64 for h in hashes)
    results = [r for r in recs if r["kind"] == "result"]
    lean = [r for r in results if r["peer"].startswith("leanattn/")]
    assert {r["case"] for r in lean} == {s.name for s in TINY}
    assert all(r["ok"] and r["median_us"] == 12.5 and r["rel_l2"] < 8e-3 for r in lean)
    assert {r["peer"] for r in lean if r["case"] == "tiny-ragged"} == {"leanattn/stream-k", "leanattn/fixed-split", "leanattn/no-split",
                                                                     "leanattn/stream-k-paged16", "leanattn/stream-k-device"}
    for r in results:  # every peer either matched float64 and was timed, or says why not
        assert (r.get("ok") and "median_us" in r) or r.get("error")
    assert "target:" in (out / "suite.log").read_text()
    md = tmp_path / "r.md"
    assert make_report.main([str(out), "--md", str(md), "--svg", str(tmp_path / "p.svg")]) == 0
    assert "| tiny-ragged |" in md.read_text()


def test_a_budget_too_small_for_the_shapes_skips_them_and_says_so(tmp_path, stand_ins):
    out = tmp_path / "run"
    assert suite.main(["--out", str(out), "--flashinfer", "off", "--leanattn-bin", str(tmp_path / "none"), "--budget-s", "1"]) == 0
    recs = records.read(out / "suite.jsonl")
    skipped = [r for r in recs if r["kind"] == "skipped"]
    assert {r["case"] for r in skipped} >= {s.name for s in TINY} and all("budget" in r["why"] or "no leanattn binary" in r["why"] for r in skipped)
    assert not [r for r in recs if r["kind"] == "result"] and recs[-1]["kind"] == "done"

"""records.open_text: raw results kept xz-compressed read as the files they hold, by either name, and a plain file
beside its .xz wins; scripts/predictions_against_measured.py reads measured runs kept so."""
import json
import lzma
import pathlib
import subprocess
import sys

from records import open_text

SCRIPT = pathlib.Path(__file__).resolve().parents[3] / "scripts" / "predictions_against_measured.py"


def test_a_compressed_file_reads_by_its_own_name_or_the_plain_one(tmp_path):
    (tmp_path / "runs.jsonl.xz").write_bytes(lzma.compress(b"line one\nline two\n"))
    for name in ("runs.jsonl.xz", "runs.jsonl"):
        with open_text(tmp_path / name) as f:
            assert f.read() == "line one\nline two\n"
    (tmp_path / "runs.jsonl").write_text("plain\n")
    with open_text(tmp_path / "runs.jsonl") as f:
        assert f.read() == "plain\n"


def test_predictions_against_compressed_measured_runs(tmp_path):
    flags = "--batch 1 --heads 8 --head-dim 128 --ctx 4096"
    (tmp_path / "predicted.jsonl").write_text(json.dumps({"flags": flags, "results": [{"strategy": "stream-k", "predicted_us": 11.0}]}) + "\n")
    measured = json.dumps({"flags": flags, "results": [{"strategy": "stream-k", "median_us": 10.0}]}) + "\n"
    (tmp_path / "measured.jsonl.xz").write_bytes(lzma.compress(measured.encode()))
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "predicted.jsonl"), str(tmp_path / "measured.jsonl")],
                         check=True, capture_output=True, text=True).stdout
    assert out.startswith("1 runs: median 10.0%")

"""scripts/calibration_folds.py on made-up runs: every line of a problem lands in one fold, each fold's problems are
held out of its training file, and together the folds hold every line once."""
import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[3] / "scripts" / "calibration_folds.py"


def test_folds_keep_a_problem_whole_and_hold_every_line_out_once(tmp_path):
    lines = []
    for p in range(7):
        for strategy in ("stream-k", "no-split"):  # two lines of one problem, as the paper's plan beside the rule's
            lines.append(json.dumps({"problem": {"batch": p + 1}, "results": [{"strategy": strategy, "median_us": 1.0}]}))
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(lines) + "\n")
    subprocess.run([sys.executable, str(SCRIPT), "--folds", "3", "--out", str(tmp_path / "f"), str(runs)], check=True, capture_output=True)
    held = []
    for f in range(3):
        test = (tmp_path / "f" / f"test{f}.jsonl").read_text().splitlines()
        train = (tmp_path / "f" / f"train{f}.jsonl").read_text().splitlines()
        assert sorted(test + train) == sorted(lines)
        batches = {json.loads(l)["problem"]["batch"] for l in test}
        assert not batches & {json.loads(l)["problem"]["batch"] for l in train}
        held += test
    assert sorted(held) == sorted(lines)
    assert len((tmp_path / "f" / "test0.jsonl").read_text().splitlines()) == 6  # problems 1, 4, 7: dealt round-robin

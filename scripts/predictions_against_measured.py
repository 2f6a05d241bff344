#!/usr/bin/env python3
"""Committed predictions against the runs a GPU measured later.

Joins each run of `leanattn cuda bench --shapes` JSON lines (their "flags") with the prediction `leanattn calibrate --predict` wrote
for the same shape (its flags) and strategy, and prints |predicted - measured| / measured over every run: median,
95th percentile, worst. Unlike `calibrate --check`, which predicts again with the model as it is now, this reads the
numbers as they were committed, before the GPU ran them.

    python3 scripts/predictions_against_measured.py PREDICTED.jsonl MEASURED.jsonl [MEASURED.jsonl ...]
"""
import json
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "bench" / "gpu"))
from records import open_text  # noqa: E402  (raw results may be kept as FILE.xz)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    predicted = {}
    with open_text(argv[1]) as f:
        for line in f:
            shape = json.loads(line)
            for r in shape["results"]:
                predicted[(shape["flags"], r["strategy"])] = r["predicted_us"]
    errors, unmatched = [], 0
    for path in argv[2:]:
        with open_text(path) as f:
            for line in f:
                run = json.loads(line)
                for r in run.get("results", []):  # a line `cuda bench --shapes` refused has none
                    key = (run["flags"], r["strategy"])
                    if key not in predicted:
                        unmatched += 1
                        continue
                    errors.append(abs(predicted[key] - r["median_us"]) / r["median_us"])
    if not errors:
        sys.exit("no measured run matches a prediction (same shapes, same strategies?)")
    errors.sort()
    print(f"{len(errors)} runs: median {100 * statistics.median(errors):.1f}%  p95 {100 * errors[int(0.95 * len(errors))]:.1f}%"
          f"  worst {100 * errors[-1]:.1f}%" + (f"  ({unmatched} runs without a prediction)" if unmatched else ""))


if __name__ == "__main__":
    main(sys.argv)

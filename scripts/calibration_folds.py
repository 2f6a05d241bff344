#!/usr/bin/env python3
"""Splits measured runs (`leanattn cuda bench --shapes` JSON lines) into k folds by problem, for cross-validating a fit:
each fold's problems are held out (testN.jsonl) from a training file of the others (trainN.jsonl). Every line of one
problem (its strategies, the paper's plan beside the rule's, repeated rounds) goes to the same fold; problems are dealt
round-robin in the order they first appear, so the same files give the same folds.

    python3 scripts/calibration_folds.py --folds 4 --out FOLDS/ train.jsonl live.jsonl
    for f in 0 1 2 3; do
        leanattn calibrate --measured FOLDS/train$f.jsonl --start leanattn-h100 --check FOLDS/test$f.jsonl -o FOLDS/fit$f.json
    done
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "bench" / "gpu"))
from records import open_text  # noqa: E402  (raw results may be kept as FILE.xz)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    if args.folds < 2:
        ap.error("--folds must be at least 2")
    lines = [line for path in args.files for line in open_text(path).read().splitlines() if line.strip()]
    fold_of = {}
    for line in lines:
        problem = json.dumps(json.loads(line)["problem"], sort_keys=True)
        fold_of.setdefault(problem, len(fold_of) % args.folds)
    args.out.mkdir(parents=True, exist_ok=True)
    for f in range(args.folds):
        held = [l for l in lines if fold_of[json.dumps(json.loads(l)["problem"], sort_keys=True)] == f]
        kept = [l for l in lines if fold_of[json.dumps(json.loads(l)["problem"], sort_keys=True)] != f]
        (args.out / f"train{f}.jsonl").write_text("\n".join(kept) + "\n")
        (args.out / f"test{f}.jsonl").write_text("\n".join(held) + "\n")
        print(f"fold {f}: {len(kept)} lines to fit, {len(held)} held out")


if __name__ == "__main__":
    main()

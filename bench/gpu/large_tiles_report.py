#!/usr/bin/env python3
"""What larger output tiles give KV heads of more than 16 query rows, from `leanattn cuda bench --shapes` JSON lines.

    # every strategy at every tile (bench/gpu/large-tile-shapes.txt): the best at any tile against the best at 16 rows
    python3 bench/gpu/large_tiles_report.py sweep SWEEP.jsonl [ROUND2.jsonl]
    # `--strategy auto` against `--strategy auto --tile-rows 16` (rounds averaged); with --sweep, each against the best there
    python3 bench/gpu/large_tiles_report.py ab --new AUTO-1.jsonl AUTO-2.jsonl --old AUTO16-1.jsonl AUTO16-2.jsonl [--sweep SWEEP.jsonl]
    # the plans auto picks today (through the library: LEANATTN_LIBRARY, python/ on the path), timed by a sweep: a
    # larger tile's plan at the sweep's time for it, a 16-row pick at what `--tile-rows 16` auto ran
    python3 bench/gpu/large_tiles_report.py picks --lengths device|host --sweep SWEEP.jsonl --old AUTO16-1.jsonl AUTO16-2.jsonl
    # auto's rule re-weighed with other margins for the first larger tile (bench_auto_candidates: every plan it weighs,
    # played in full), each pick that moves timed by the sweep, against what auto ran under the shipped margin
    python3 bench/gpu/large_tiles_report.py margins --candidates CANDIDATES.jsonl --sweep SWEEP.jsonl --auto AUTO-1.jsonl AUTO-2.jsonl
    # how often each kind of candidate auto weighs is the one it chooses (problems counted once by their flags)
    python3 bench/gpu/large_tiles_report.py chosen CANDIDATES.jsonl [MORE.jsonl ...]

A problem is a line's flags without --tile-rows; ratios are summarised by their geometric mean.
"""
import argparse
import collections
import json
import math
import re

from records import open_text  # raw results may be kept as FILE.xz


def problem_of(flags):
    return re.sub(r" --tile-rows \d+", "", flags)


def read(paths):
    """{(problem, tile rows, strategy): mean median_us over the files}."""
    times = collections.defaultdict(list)
    for path in paths:
        with open_text(path) as f:
            for line in f:
                run = json.loads(line)
                for r in run.get("results", []):  # a line cuda bench refused has none
                    times[(problem_of(run["flags"]), run["problem"]["tile_rows"], r["strategy"])].append(r["median_us"])
    return {k: sum(v) / len(v) for k, v in times.items()}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def best_by_problem(times, tile_rows=None):
    best = {}
    for (problem, tile, _), us in times.items():
        if tile_rows is None or tile == tile_rows:
            best[problem] = min(us, best.get(problem, math.inf))
    return best


def sweep(args):
    times = read(args.files)
    best, best16 = best_by_problem(times), best_by_problem(times, 16)
    ratios = []
    for problem in sorted(best16):
        plan = min((us, tile, s) for (p, tile, s), us in times.items() if p == problem)
        ratios.append(best[problem] / best16[problem])
        print(f"{ratios[-1]:.3f}  best {plan[0]:8.1f} us ({plan[2]}, {plan[1]} rows)  at 16 rows {best16[problem]:8.1f}  {problem}")
    print(f"{len(ratios)} problems: the best at any tile {geomean(ratios):.3f}x the best at 16 rows (geometric mean), "
          f"{min(ratios):.3f}-{max(ratios):.3f}")


def summarise(name, new, old, best):
    """new, old: {problem: (us, tile rows)}."""
    ratios = [new[p][0] / old[p][0] for p in old]
    line = (f"{name}: {len(ratios)} problems, a larger tile on {sum(new[p][1] > 16 for p in old)}; {geomean(ratios):.3f}x the time at 16 rows "
            f"({min(ratios):.3f}-{max(ratios):.3f}), slower beyond 3% on {sum(r > 1.03 for r in ratios)}")
    if best:
        line += (f"; within 3% of the best measured on {sum(new[p][0] <= 1.03 * best[p] for p in old)} "
                 f"(at 16 rows {sum(old[p][0] <= 1.03 * best[p] for p in old)})")
    print(line)


def auto_runs(paths):
    """{problem: (us, tile rows)} of auto's runs (one plan per line)."""
    out = {}
    for (problem, tile, _), us in read(paths).items():
        out[problem] = (us, tile)
    return out


def ab(args):
    new, old = auto_runs(args.new), auto_runs(args.old)
    best = best_by_problem(read(args.sweep)) if args.sweep else None
    for p in sorted(old):
        print(f"{new[p][0] / old[p][0]:.3f}  auto {new[p][0]:8.1f} us ({new[p][1]} rows)  at 16 rows {old[p][0]:8.1f}  {p}")
    summarise("auto", new, old, best)


def picks(args):
    from leanattn import reports  # the library's auto, as DecodePlan and `cuda bench` weigh it
    times, old = read(args.sweep), auto_runs(args.old)
    best = best_by_problem(times)
    new = {}
    with open_text(args.old[0]) as f:
        for line in f:
            run = json.loads(line)
            pr, problem = run["problem"], problem_of(run["flags"])
            plan = reports.schedule(batch=pr["batch"], heads=pr["q_heads"], kv_heads=pr["kv_heads"], head_dim=pr["head_dim"], ctx=pr["ctx"],
                                    q_len=pr["q_len"], tile=pr["tile"], tile_rows=0, strategy="auto",
                                    lengths=None if args.lengths == "device" else "host")
            tile = plan["problem"]["tile_rows"]
            new[problem] = old[problem] if tile <= 16 else (times[(problem, tile, plan["strategy"])], tile)
            print(f"{new[problem][0] / old[problem][0]:.3f}  {plan['strategy']} on {tile} rows  {problem}")
    summarise(f"auto's picks ({args.lengths} lengths), timed by the sweep", new, old, best)


def weigh(candidates, larger_tile_margin):
    """auto's rule (sim/strategy_choice.hpp) over candidates in their order: each replaces the choice so far when faster by
    its margin; a tile of more than 16 rows by larger_tile_margin over a choice on 16-row tiles, else by 0.1%; no-split's
    plan when the choice so far is that very plan run as stream-k (the same time on the same grid) always."""
    choice = None
    for c in candidates:
        margin = c["margin"]
        if c["tile_rows"] > 16:
            margin = 0.001 if choice["tile_rows"] > 16 else larger_tile_margin
        same_plan = (choice is not None and c["strategy"] == "no-split" and c["tile_rows"] == 0 and choice["strategy"] == "stream-k"
                     and choice["tile_rows"] == 0 and c["predicted_us"] == choice["predicted_us"] and c["grid"] == choice["grid"])
        if choice is None or same_plan or c["predicted_us"] < choice["predicted_us"] * (1 - margin):
            choice = c
    return choice


def margins(args):
    with open_text(args.candidates) as f:
        problems = [json.loads(line) for line in f]
    times, ran = read(args.sweep), auto_runs(args.auto)
    for p in problems:  # the rule as written must give the choice the library made
        shipped = weigh(p["candidates"], args.shipped)
        if (shipped["strategy"], shipped["tile_rows"]) != (p["choice"]["strategy"], p["choice"]["tile_rows"]):
            raise SystemExit(f"the rule here does not give auto's choice at the shipped margin {args.shipped}: {p['flags']}")
    for margin in args.margins:
        ratios, moved, untimed = [], 0, 0
        for p in problems:
            pick, shipped = weigh(p["candidates"], margin), weigh(p["candidates"], args.shipped)
            if pick is shipped:
                ratios.append(1.0)
                continue
            moved += 1
            key = (problem_of(p["flags"]), pick["tile_rows"] or 16, pick["strategy"])
            if not pick["default_plan"] or key not in times or p["flags"] not in ran:
                untimed += 1
                continue
            ratios.append(times[key] / ran[p["flags"]][0])
            print(f"  {margin:.3f}: {ratios[-1]:.3f}  {pick['strategy']} on {key[1]} rows {times[key]:7.1f} us, shipped "
                  f"{shipped['strategy']} on {shipped['tile_rows'] or 16} rows {ran[p['flags']][0]:7.1f}  {p['flags']}")
        slower = sum(r > 1.03 for r in ratios)
        print(f"margin {margin:.3f}: {moved} of {len(problems)} picks move ({untimed} not in the sweep); "
              f"{geomean(ratios):.3f}x the shipped margin's time, slower beyond 3% on {slower}")


def kind_of(candidate, candidates):
    """A candidate's kind: a default plan by its strategy and tile rows; otherwise stream-k by its margin (0.1%: k CTAs
    on every output; 10%: the full, 3/4 or 1/2 grid) or fixed-split by how its split count relates to the default's."""
    if candidate["default_plan"]:
        return f"default {candidate['strategy']}" + (f" on {candidate['tile_rows']} rows" if candidate["tile_rows"] else "")
    if candidate["strategy"] == "stream-k":
        return f"stream-k grid at {candidate['margin']:g}"
    default = next(c for c in candidates if c["strategy"] == "fixed-split" and c["default_plan"] and c["tile_rows"] == 0)
    if candidate["splits"] == default["splits"] // 2:
        return "fixed-split, half the splits"
    if candidate["splits"] == default["splits"] * 2:
        return "fixed-split, double the splits"
    return "fixed-split, one wave's splits"


def chosen(args):
    weighed, picked, seen = collections.Counter(), collections.Counter(), set()
    for path in args.files:
        with open_text(path) as f:
            for line in f:
                p = json.loads(line)
                if p["flags"] in seen:
                    continue
                seen.add(p["flags"])
                choice = weigh(p["candidates"], args.larger_tile_margin)
                for c in p["candidates"]:
                    weighed[kind_of(c, p["candidates"])] += 1
                    picked[kind_of(c, p["candidates"])] += c is choice
    print(f"{len(seen)} problems")
    for kind in sorted(weighed):
        print(f"{kind:40s} weighed {weighed[kind]:6d}  chosen {picked[kind]:5d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("files", nargs="+")
    a = sub.add_parser("ab")
    a.add_argument("--new", nargs="+", required=True)
    a.add_argument("--old", nargs="+", required=True)
    a.add_argument("--sweep", nargs="*", default=[])
    k = sub.add_parser("picks")
    k.add_argument("--lengths", choices=["device", "host"], required=True)
    k.add_argument("--sweep", nargs="+", required=True)
    k.add_argument("--old", nargs="+", required=True)
    m = sub.add_parser("margins")
    m.add_argument("--candidates", required=True)
    m.add_argument("--sweep", nargs="+", required=True)
    m.add_argument("--auto", nargs="+", required=True)
    m.add_argument("--shipped", type=float, default=0.10)
    m.add_argument("--margins", type=float, nargs="+", default=[0.10, 0.075, 0.05, 0.025, 0.0])
    c = sub.add_parser("chosen")
    c.add_argument("files", nargs="+")
    c.add_argument("--larger-tile-margin", type=float, default=0.10)
    args = ap.parse_args()
    {"sweep": sweep, "ab": ab, "picks": picks, "margins": margins, "chosen": chosen}[args.what](args)


if __name__ == "__main__":
    main()

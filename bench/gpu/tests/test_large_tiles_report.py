"""large_tiles_report.py on made-up cuda bench lines: a problem is its flags without --tile-rows, rounds are averaged,
the best at any tile is set against the best at 16 rows, and auto against auto at 16 rows and the best there is."""
import json
import math

import large_tiles_report as report


def bench_line(flags, tile_rows, **us):
    return json.dumps({"flags": flags + f" --tile-rows {tile_rows}", "problem": {"tile_rows": tile_rows},
                       "results": [{"strategy": s.replace("_", "-"), "median_us": t} for s, t in us.items()]})


def write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_rounds_are_averaged_and_problems_drop_their_tile_rows(tmp_path):
    a = write(tmp_path / "a.jsonl", [bench_line("--batch 1", 16, stream_k=10.0), bench_line("--batch 1", 32, stream_k=8.0)])
    b = write(tmp_path / "b.jsonl", [bench_line("--batch 1", 16, stream_k=12.0), bench_line("--batch 1", 32, stream_k=6.0)])
    times = report.read([a, b])
    assert times == {("--batch 1", 16, "stream-k"): 11.0, ("--batch 1", 32, "stream-k"): 7.0}
    assert report.best_by_problem(times) == {"--batch 1": 7.0}
    assert report.best_by_problem(times, 16) == {"--batch 1": 11.0}


def test_sweep_sets_the_best_at_any_tile_against_the_best_at_16_rows(tmp_path, capsys):
    sweep = write(tmp_path / "s.jsonl", [
        bench_line("--batch 1", 16, stream_k=10.0, no_split=20.0), bench_line("--batch 1", 32, stream_k=5.0, no_split=30.0),
        bench_line("--batch 2", 16, stream_k=10.0, no_split=9.0), bench_line("--batch 2", 32, stream_k=12.0, no_split=11.0)])
    report.sweep(type("Args", (), {"files": [sweep]}))
    last = capsys.readouterr().out.splitlines()[-1]
    assert f"{math.sqrt(0.5 * 1.0):.3f}x" in last and "0.500-1.000" in last  # 5/10 and 9/9


def test_ab_counts_the_larger_tiles_the_slower_and_those_near_the_best(tmp_path, capsys):
    new = write(tmp_path / "new.jsonl", [bench_line("--batch 1", 32, stream_k=5.0), bench_line("--batch 2", 32, stream_k=11.0)])
    old = write(tmp_path / "old.jsonl", [bench_line("--batch 1", 16, stream_k=10.0), bench_line("--batch 2", 16, stream_k=10.0)])
    sweep = write(tmp_path / "s.jsonl", [bench_line("--batch 1", 32, no_split=5.0), bench_line("--batch 2", 16, no_split=10.0)])
    report.ab(type("Args", (), {"new": [new], "old": [old], "sweep": [sweep]}))
    last = capsys.readouterr().out.splitlines()[-1]
    assert "2 problems, a larger tile on 2" in last
    assert "slower beyond 3% on 1" in last  # 11 against 10
    assert "within 3% of the best measured on 1 (at 16 rows 1)" in last


def candidate(strategy, tile_rows, us, margin=0.001, grid=132, default_plan=True):
    return {"strategy": strategy, "splits": 1, "grid": grid, "tile_rows": tile_rows, "default_plan": default_plan,
            "predicted_us": us, "margin": margin}


def test_weigh_takes_a_larger_tile_only_by_its_margin_then_any_by_a_tenth_of_a_percent():
    cands = [candidate("stream-k", 0, 100.0), candidate("no-split", 0, 98.0, 0.03),
             candidate("stream-k", 32, 92.0, 0.10), candidate("stream-k", 64, 91.9, 0.001)]
    assert report.weigh(cands, 0.10)["tile_rows"] == 0                 # 8% is short of 10%: no larger tile
    assert report.weigh(cands, 0.05)["tile_rows"] == 64                # 32 rows by 8%, then 64 by 0.11%
    assert report.weigh(cands, 0.05)["predicted_us"] == 91.9
    # no-split takes the choice when it is that very plan run as stream-k (the same time on the same grid)
    same = [candidate("stream-k", 0, 50.0, grid=64), candidate("no-split", 0, 50.0, 0.03, grid=64)]
    assert report.weigh(same, 0.10)["strategy"] == "no-split"


def test_margins_times_the_picks_that_move_by_the_sweep_against_what_auto_ran(tmp_path, capsys):
    problem = "--batch 1 --heads 64"
    cands = write(tmp_path / "c.jsonl", [json.dumps({
        "flags": problem, "candidates": [candidate("stream-k", 0, 100.0), candidate("stream-k", 32, 93.0, 0.10)],
        "choice": {"strategy": "stream-k", "tile_rows": 0, "predicted_us": 100.0}})])
    sweep = write(tmp_path / "s.jsonl", [bench_line(problem, 16, stream_k=40.0), bench_line(problem, 32, stream_k=44.0)])
    ran = write(tmp_path / "a.jsonl", [json.dumps({"flags": problem, "problem": {"tile_rows": 16},
                                                   "results": [{"strategy": "stream-k", "median_us": 40.0}]})])
    report.margins(type("Args", (), {"candidates": cands, "sweep": [sweep], "auto": [ran], "shipped": 0.10, "margins": [0.10, 0.05]}))
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("margin 0.100: 0 of 1 picks move")
    assert "1.100" in out[1] and "stream-k on 32 rows" in out[1]    # the sweep's 44 against the 40 auto ran
    assert "slower beyond 3% on 1" in out[2]


def test_chosen_counts_each_kind_weighed_and_chosen_once_per_problem(tmp_path, capsys):
    cands = [candidate("stream-k", 0, 100.0), candidate("no-split", 0, 96.0, 0.03),
             dict(candidate("fixed-split", 0, 99.0, 0.05), splits=8),
             dict(candidate("fixed-split", 0, 95.0, 0.10, default_plan=False), splits=16),
             candidate("stream-k", 0, 99.9, 0.10, grid=99, default_plan=False)]
    line = json.dumps({"flags": "--batch 1", "candidates": cands, "choice": {}})
    path = write(tmp_path / "c.jsonl", [line, line])  # the same problem twice: counted once
    report.chosen(type("Args", (), {"files": [path], "larger_tile_margin": 0.10}))
    out = capsys.readouterr().out
    assert out.startswith("1 problems")
    assert "default no-split" in out and "fixed-split, double the splits" in out and "stream-k grid at 0.1" in out
    no_split = next(l for l in out.splitlines() if l.startswith("default no-split"))
    assert no_split.split()[-1] == "1"  # 96 beats 100 by its 3%; 95 is not 10% below 96

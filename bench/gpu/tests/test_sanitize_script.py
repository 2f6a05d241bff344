"""sanitize.sh's bookkeeping with stand-ins for compute-sanitizer and the leanattn binary: every tool runs every
problem, a run is clean only when the tool reports nothing and the validation passed, one summary line per tool."""
import os
import pathlib
import stat
import subprocess

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "sanitize.sh"

FAKE_SANITIZER = """#!/usr/bin/env bash
# --tool T --error-exitcode N BIN args...: racecheck finds a hazard on ragged problems, memcheck an error on bf16 gqa
tool=$2; shift 4
"$@"; rc=$?
case "$tool:$*" in
  racecheck:*3000,257*) echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; exit 99 ;;
  racecheck:*) echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" ;;
  memcheck:*2000,700*bf16*) echo "========= ERROR SUMMARY: 2 errors"; exit 99 ;;
  *) echo "========= ERROR SUMMARY: 0 errors" ;;
esac
exit $rc
"""

FAKE_LEANATTN = """#!/usr/bin/env bash
# cuda validate [flags]: --help names --layout; otherwise every strategy ok
if [ "$3" = "--help" ]; then echo "  --layout arg  K/V layout"; exit 0; fi
echo "stream-k     grid 10 rel_l2 2.0e-04 ok"
"""


def tool(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run(tmp_path, *args):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool(bin_dir / "compute-sanitizer", FAKE_SANITIZER)
    tool(bin_dir / "leanattn", FAKE_LEANATTN)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    out = tmp_path / "out"
    p = subprocess.run(["bash", str(SCRIPT), str(out), "--bin", str(bin_dir / "leanattn"), *args], capture_output=True, text=True, env=env, timeout=120)
    return p, out


def test_every_tool_runs_every_problem_and_reports_one_line(tmp_path):
    p, out = run(tmp_path)
    summary = (out / "sanitize-summary.txt").read_text().splitlines()
    assert [line.split()[0] for line in summary] == ["memcheck", "racecheck", "synccheck", "initcheck"]
    assert summary[2] == "synccheck  clean  44/44 runs" and summary[3] == "initcheck  clean  44/44 runs"
    # 24 problems of the first paths and 10 per dtype of the paths added since (d 96, d 256, q_len 4, MQA, team tiles,
    # row blocks)
    # racecheck: the 8 ragged problems (2 dtypes x 2 head dims x 2 row paths); memcheck: the 4 bf16 GQA ones
    assert summary[1].startswith("racecheck  FAILED  36/44 clean (failing: d64-cuda-cores-fp16 ragged")
    assert summary[0].startswith("memcheck  FAILED  40/44 clean") and "d128-tensor-cores-bf16 gqa" in summary[0]
    assert p.returncode == 1
    log = (out / "sanitize-racecheck.log").read_text()
    assert log.count("== racecheck:") == 44 and "--layout ragged" in log  # the binary takes layouts: ragged runs as one
    assert not list(out.glob(".sanitize-*"))


def test_quick_runs_fp16_only(tmp_path):
    p, out = run(tmp_path, "--quick")
    summary = (out / "sanitize-summary.txt").read_text()
    assert "initcheck  clean  22/22 runs" in summary and "bf16" not in (out / "sanitize-memcheck.log").read_text()


def test_runs_past_the_deadline_are_counted_as_not_run(tmp_path):
    p, out = run(tmp_path, "--quick", "--deadline-s", "0")
    summary = (out / "sanitize-summary.txt").read_text().splitlines()
    assert summary[0] == "memcheck  INCOMPLETE  0/22 clean, 22 not run (deadline 0 s)" and p.returncode == 1


def test_only_keeps_the_problems_whose_name_matches(tmp_path):
    p, out = run(tmp_path, "--quick", "--only", "rows")
    summary = (out / "sanitize-summary.txt").read_text()
    log = (out / "sanitize-memcheck.log").read_text()
    assert "memcheck  clean  3/3 runs" in summary and p.returncode == 0  # the tiles of 56, 64 and 71 rows
    assert log.count("== memcheck:") == 3 and log.count("--tile-rows") == 3

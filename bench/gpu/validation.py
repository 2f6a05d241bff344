"""Correctness before speed: `leanattn cuda validate` over a list of problems, and the Python package's own
layouts against float64.

cli: each case is one `leanattn cuda validate ... --dtype D [--layout L --block-size S]` process (fresh random
     inputs, output poisoned with NaN before each of 3 runs per strategy, float64 reference; exit 1 over
     tolerance), several at once (they are light on the GPU; their reference runs on the CPU). A binary whose
     `cuda validate` has no --layout runs the padded cases only and the others are recorded as skipped.
api: leanattn.DecodePlan on every layout the package takes (the strided padded view, a token-major copy, paged
     copies with blocks of 1, 16 and 256 tokens at shuffled ids), each strategy, poisoned output, float64.
"""
import concurrent.futures
import re
import shlex
import subprocess
import time

import torch

import records
from inputs import TOLERANCE, Inputs, rel_l2, sync
from peers import LEANATTN_STRATEGIES

CASE_TIMEOUT_S = 180


def binary_takes_layouts(binary):
    help_text = subprocess.run([binary, "cuda", "validate", "--help"], capture_output=True, text=True, timeout=60)
    return "--layout" in help_text.stdout + help_text.stderr


def _run_case(binary, case, seed):
    cmd = [binary, "cuda", "validate", *shlex.split(case.args()), "--seed", str(seed)]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=CASE_TIMEOUT_S)
        text, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        text, rc = (e.stdout or b"").decode(errors="replace") + f"\ntimed out after {CASE_TIMEOUT_S} s\n", 124
    errs = [float(x) for x in re.findall(r"rel_l2 ([0-9.eE+-]+)", text)]
    ok = rc == 0 and bool(re.search(r"\bok$", text, re.M)) and "FAILED" not in text
    rec = records.validate("cli", case.flags, case.args(), case.dtype, case.label(),
                           ok, max(errs) if errs else None, time.monotonic() - start, rc, "" if ok else text.strip()[-400:])
    return rec, f"== validate {case.args()} --seed {seed}  (rc {rc})\n{text}"


def cli_validate(binary, cases, writer, log_path, jobs=4, seed=1):
    """Runs the cases (jobs at a time); writes one record each and their output to log_path. Returns (ok, total)."""
    takes_layouts = binary_takes_layouts(binary)
    runnable = []
    for i, case in enumerate(cases):
        if case.layout == "padded" or takes_layouts:
            runnable.append((case, seed + i))
        else:
            writer.write(records.skipped("validate", case.args(), "this leanattn binary's `cuda validate` has no --layout flag"))
    passed = 0
    with open(log_path, "a") as log, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for future in concurrent.futures.as_completed([pool.submit(_run_case, binary, c, s) for c, s in runnable]):
            rec, text = future.result()
            writer.write(rec)
            log.write(text + "\n")
            log.flush()
            passed += rec["ok"]
    return passed, len(runnable)


def api_validate(cases, writer, seed=1):
    """Every (shape, layout) of shapes.api_validate_cases through leanattn.DecodePlan. Returns (ok, total)."""
    import leanattn
    passed = total = 0
    for shape, layout, block in cases:
        start = time.monotonic()
        label = layout + (f"-{block}" if block else "")
        try:
            inputs = Inputs(shape, seed)
            ref = inputs.reference()
            k, v, table = inputs.layout(layout, block)
            worst, failed = 0.0, []
            for strategy in LEANATTN_STRATEGIES:
                plan = leanattn.DecodePlan(inputs.q, k, v, table, strategy=strategy)
                out = torch.full_like(inputs.q, float("nan"))
                plan.run(inputs.q, k, v, inputs.seqlens, table, out=out)
                sync()
                err = rel_l2(out, ref)
                worst = max(worst, err)
                if not err <= TOLERANCE[shape.dtype]:
                    failed.append(f"{strategy} rel L2 {err:.3g}")
            ok = not failed
            rec = records.validate("api", shape.name, f"{shape.describe()} {label}", shape.dtype, label, ok, worst,
                                   time.monotonic() - start, detail="; ".join(failed))
        except Exception as e:  # the package refusing a layout is a failure too
            ok = False
            rec = records.validate("api", shape.name, f"{shape.describe()} {label}", shape.dtype, label, False, None,
                                   time.monotonic() - start, detail=f"{type(e).__name__}: {str(e)[:300]}")
        writer.write(rec)
        passed += ok
        total += 1
        torch.cuda.empty_cache()
    return passed, total

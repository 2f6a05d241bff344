#!/usr/bin/env python3
"""The GPU suite: builds nothing, validates everything, times leanattn and its peers the same way in one process.

    python3 bench/gpu/suite.py --out DIR [--quick] [--budget-s S]     on the GPU machine (see bench/gpu/README.md)
    python3 bench/gpu/suite.py --estimate                              the time it should take, anywhere

In order (a run cut short by its budget loses the least important work, and says what it skipped):
  1. the machine: GPU, driver, torch, cuDNN, FlashInfer, leanattn (suite.jsonl's first record)
  2. FlashInfer's kernels start compiling in the background (flashinfer_jit.py), when its wheel is installed
  3. the copy bandwidth (a 2 GiB device-to-device copy, bytes read + written), timed like every op
  4. `leanattn cuda validate` over shapes.validate_cases(), several processes at once (validation.py)
  5. the Python package on every cache layout against float64 (validation.py)
  6. bitwise reproducibility: each leanattn strategy replayed 100 times, outputs compared bit for bit
  7. the timed shapes (shapes.suite_shapes): each peer checked against float64, then timed (measure.py,
     timing.py): leanattn's stream-k / fixed-split / no-split (and stream-k on a paged view), SDPA's flash /
     cuDNN / efficient backends, FlashInfer's batch decode
  8. the copy bandwidth again (drift), then a short table
Output in DIR: suite.jsonl (every record, written as it goes), suite.log (this output), validate.log (the CLI's).
bench/gpu/make_report.py turns DIR into bench/results/gpu-decode-h100.md and its plot.
"""
import argparse
import datetime
import os
import pathlib
import platform
import shlex
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "python"))

import estimate  # noqa: E402
import records  # noqa: E402
import shapes  # noqa: E402
from budget import Budget  # noqa: E402

FULL_BUDGET_S, QUICK_BUDGET_S = 540, 170
SECTIONS = ("validate", "hash", "targets", "bench", "ragged", "sweep", "grid")
FULL_FLASHINFER_WAIT_S, QUICK_FLASHINFER_WAIT_S = 150, 75


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output folder (created)")
    ap.add_argument("--quick", action="store_true", help="a subset that fits in about 3 minutes on an H100")
    ap.add_argument("--budget-s", type=float, help=f"stop starting work past this (default {FULL_BUDGET_S}, quick {QUICK_BUDGET_S})")
    ap.add_argument("--leanattn-bin", help="the leanattn CLI built with CUDA (default .devbuild/leanattn, else build/apps/leanattn)")
    ap.add_argument("--flashinfer", choices=["auto", "off"], default="auto", help="time FlashInfer where its wheel imports")
    ap.add_argument("--flashinfer-wait-s", type=float, help="longest wait for FlashInfer's kernels to compile")
    ap.add_argument("--validate-jobs", type=int, default=4)
    ap.add_argument("--min-reps", type=int, default=100, help="timed repetitions per peer and shape, at least")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--estimate", action="store_true", help="print the estimated time per section and exit")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help="comma-separated subset of " + ",".join(SECTIONS) + " (default: all); for quick looks while a kernel changes")
    a = ap.parse_args(argv)
    a.sections = set(x for x in a.sections.split(",") if x)
    if not a.sections <= set(SECTIONS):
        ap.error(f"--sections: unknown {sorted(a.sections - set(SECTIONS))}; known: {','.join(SECTIONS)}")
    if a.min_reps < 100:
        ap.error("--min-reps: the suite reports medians of at least 100 repetitions")
    if not a.estimate and not a.out:
        ap.error("--out is required")
    a.budget_s = a.budget_s or (QUICK_BUDGET_S if a.quick else FULL_BUDGET_S)
    a.flashinfer_wait_s = a.flashinfer_wait_s if a.flashinfer_wait_s is not None else (QUICK_FLASHINFER_WAIT_S if a.quick else FULL_FLASHINFER_WAIT_S)
    if not a.leanattn_bin:
        devbuild = ROOT / ".devbuild" / "leanattn"
        a.leanattn_bin = str(devbuild if devbuild.exists() else ROOT / "build" / "apps" / "leanattn")
    return a


class Log:
    """Prints and keeps a copy in suite.log."""

    def __init__(self, path, budget):
        self.file = open(path, "a", buffering=1)
        self.budget = budget

    def __call__(self, text):
        line = f"[{self.budget.elapsed():6.1f} s] {text}"
        print(line, flush=True)
        self.file.write(line + "\n")

    def progress(self, shape, rows, budget):
        by = {r.get("peer"): r for r in rows if r.get("kind") == "result"}
        us = lambda p: f"{by[p]['median_us']:.1f}" if p in by and "median_us" in by[p] else "-"
        sdpa = [(by[p]["median_us"], p) for p in estimate.SDPA_PEERS if p in by and "median_us" in by[p]]
        best = f"{min(sdpa)[0]:.1f} ({min(sdpa)[1]})" if sdpa else "-"
        self(f"{shape.name} {shape.dtype}: stream-k {us('leanattn/stream-k')} us, best SDPA {best}, "
             f"FlashInfer {us('flashinfer/decode')}; {budget.remaining():.0f} s of budget left")
        failed = [f"{p}: {r['error'][:90]}" for p, r in by.items() if r.get("error")]
        if failed:
            self("  refused or failed: " + "; ".join(failed))


def machine_record(a, torch, leanattn_state, flashinfer_state):
    props = torch.cuda.get_device_properties(0)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm", "--format=csv,noheader"],
                         capture_output=True, text=True)
    fields = [f.strip() for f in smi.stdout.strip().split(",")] if smi.returncode == 0 else []
    return records.machine(
        date_utc=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        gpu=props.name, driver=fields[1] if len(fields) > 1 else None, max_sm_clock=fields[3] if len(fields) > 3 else None,
        sms=props.multi_processor_count, l2_bytes=getattr(props, "L2_cache_size", None), memory_bytes=props.total_memory,
        python=platform.python_version(), torch=torch.__version__, cuda=torch.version.cuda,
        cudnn=torch.backends.cudnn.version(), **flashinfer_state, **leanattn_state,
        command=shlex.join([sys.executable] + sys.argv), mode="quick" if a.quick else "full", budget_s=a.budget_s)


def leanattn_state():
    try:
        import leanattn
        return {"leanattn": leanattn.version(), "leanattn_cuda": leanattn.has_cuda(), "leanattn_error": ""}
    except Exception as e:  # the report says why leanattn's rows are missing
        return {"leanattn": None, "leanattn_cuda": False, "leanattn_error": f"{type(e).__name__}: {e}"}


def main(argv=None):
    a = parse_args(argv)
    if a.estimate:
        for quick in (True, False):
            print(("quick" if quick else "full") + f" (budget {QUICK_BUDGET_S if quick else FULL_BUDGET_S} s):")
            wait = QUICK_FLASHINFER_WAIT_S if quick else FULL_FLASHINFER_WAIT_S
            for name, s in estimate.estimate(quick).items():
                print(f"  {name:16} {s:7.1f} s")
            print(f"  (+ up to {wait - estimate.estimate(quick)['validate (cli)']:.0f} s more if FlashInfer's kernels compile that long)")
        return 0
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    budget = Budget(a.budget_s)
    log = Log(out / "suite.log", budget)
    writer = records.Writer(out / "suite.jsonl")
    os.environ.setdefault("LEANATTN_DATA", str(ROOT / "data"))
    os.environ.setdefault("FLASHINFER_WORKSPACE_BASE", str(ROOT / "build-flashinfer"))
    os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    timed = [s for s in shapes.suite_shapes(a.quick) if s.section in a.sections]

    import flashinfer_jit
    warmups = {}
    if a.flashinfer == "auto" and flashinfer_jit.available():
        warmups = flashinfer_jit.start({(s.dtype, s.head_dim) for s in timed})
        log(f"FlashInfer: compiling its decode kernels in the background ({len(warmups)} configurations)")

    import torch
    import measure
    import validation
    from peers import FlashInferPeer, LeanattnPeer, SdpaPeer, LEANATTN_STRATEGIES, SDPA_BACKENDS
    from timing import Timer, copy_bandwidth, one_tiny_kernel

    lean = leanattn_state()
    fi_state = {"flashinfer": flashinfer_jit.version(), "flashinfer_error": "" if warmups else ("off" if a.flashinfer == "off" else "not installed")}
    timer = Timer()
    machine = writer.write(machine_record(a, torch, lean, fi_state) | {"timing": timer.describe()})
    log(f"{machine['gpu']}, driver {machine['driver']}, torch {torch.__version__}, leanattn {lean['leanattn']} "
        f"(CUDA backend: {lean['leanattn_cuda']}{', ' + lean['leanattn_error'] if lean['leanattn_error'] else ''})")

    completed = False
    try:
        moved, stats = copy_bandwidth(timer)
        copy_gbps = writer.write(records.copy("start", moved, stats))["gbps"]
        log(f"copy bandwidth {copy_gbps:.0f} GB/s (bytes read + written)")
        tiny = writer.write(records.calibration("a graph of one 1-element kernel", one_tiny_kernel(timer)))
        log(f"the method's own floor (a graph of one tiny kernel): {tiny['median_us']:.1f} us")

        def section_fits(name, seconds):
            if budget.allows(seconds):
                return True
            writer.write(records.skipped(name, name, f"time budget: ~{seconds:.0f} s needed, {budget.remaining():.0f} s left"))
            return False

        cli_cases = shapes.validate_cases(a.quick) if "validate" in a.sections else []
        if not cli_cases:
            pass
        elif not pathlib.Path(a.leanattn_bin).exists():
            writer.write(records.skipped("validate", "cli", f"no leanattn binary at {a.leanattn_bin}"))
            log(f"leanattn cuda validate: skipped, no binary at {a.leanattn_bin}")
        elif section_fits("validate (cli)", estimate.validate_seconds(cli_cases, a.validate_jobs)):
            ok, total = validation.cli_validate(a.leanattn_bin, cli_cases, writer, out / "validate.log", a.validate_jobs, a.seed)
            log(f"leanattn cuda validate: {ok}/{total} cases passed")
        api_cases = shapes.api_validate_cases(a.quick) if "validate" in a.sections else []
        if not api_cases:
            pass
        elif lean["leanattn_cuda"] and section_fits("validate (api)", estimate.api_validate_seconds(api_cases)):
            ok, total = validation.api_validate(api_cases, writer, a.seed)
            log(f"leanattn.DecodePlan on every layout: {ok}/{total} passed")
        elif not lean["leanattn_cuda"]:
            writer.write(records.skipped("validate", "api", f"leanattn has no CUDA backend here: {lean['leanattn_error'] or 'has_cuda() is False'}"))

        wait = min(a.flashinfer_wait_s, max(0.0, budget.remaining() - 30.0))
        ready = flashinfer_jit.finish(warmups, wait, writer) if warmups else set()
        if ready:
            import flashinfer
            writer.write(records.note(f"flashinfer {flashinfer.__version__}: decode kernels ready for {sorted(ready)}"))
            log(f"FlashInfer {flashinfer.__version__} ready for {sorted(ready)}")

        if "hash" in a.sections and lean["leanattn_cuda"] and section_fits("hash", estimate.hash_seconds(shapes.hash_shapes())):
            for shape in shapes.hash_shapes():
                measure.hash_check(shape, writer, seed=a.seed)
            log("bitwise check: done")

        by_name = {p.name: p for p in [LeanattnPeer(s) for s in LEANATTN_STRATEGIES] + [LeanattnPeer("stream-k", paged=True)]
                   + [LeanattnPeer("stream-k", device_lengths=True)]
                   + [SdpaPeer(b) for b in SDPA_BACKENDS] + [FlashInferPeer()]}
        peers_of = lambda s: [by_name[n] for n in estimate.peers_for(s, (s.dtype, s.head_dim) in ready)]
        measure.timed_sections(timed, peers_of, timer, copy_gbps, writer, budget, log, a.seed, a.min_reps)

        moved, stats = copy_bandwidth(timer)
        log(f"copy bandwidth at the end {writer.write(records.copy('end', moved, stats))['gbps']:.0f} GB/s")
        completed = True
    except measure.ContextLost as e:
        writer.write(records.note(f"the CUDA context broke, the run ends here: {e}"))
        log(f"the CUDA context broke, the run ends here: {e}")
    finally:
        for proc in warmups.values():
            if proc.poll() is None:
                proc.kill()
        writer.write(records.done(budget.elapsed(), a.budget_s, completed))
        writer.close()

    import make_report
    for line in make_report.short_table(records.read(out / "suite.jsonl")):
        log(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""FlashInfer in the suite: whether it is there, and its decode kernels built before the timed runs.

FlashInfer's wheel (flashinfer-python, pure Python) compiles its CUDA kernels with nvcc at first use. The suite
starts one flashinfer_warmup.py process per (dtype, head dim) its shapes need, in parallel, while it validates
(CPU work beside light GPU work), then waits for them up to a limit before it times anything: a kernel still
compiling by then is left out of the timings (FlashInfer's rows say so), never timed while the CPU is busy.
"""
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import time

import records

HERE = pathlib.Path(__file__).resolve().parent


def available():
    return importlib.util.find_spec("flashinfer") is not None


def version():
    """The installed wheel's version, read without importing it (None when absent)."""
    try:
        return importlib.metadata.version("flashinfer-python")
    except importlib.metadata.PackageNotFoundError:
        return None


def start(keys):
    """keys: {(dtype, head_dim)}; returns {key: Popen}."""
    procs = {}
    for dtype, head_dim in sorted(keys):
        cmd = [sys.executable, str(HERE / "flashinfer_warmup.py"), "--dtype", dtype, "--head-dim", str(head_dim)]
        procs[(dtype, head_dim)] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    return procs


def finish(procs, wait_s, writer):
    """Waits for the warm-ups (all within wait_s from now); returns the keys whose kernels built and ran."""
    deadline = time.monotonic() + wait_s
    ready = set()
    for key, proc in procs.items():
        try:
            out, _ = proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()  # this process is ours (started above)
            proc.communicate()
            writer.write(records.jit(f"flashinfer decode {key[0]} d{key[1]}", False, wait_s, f"still compiling after {wait_s:.0f} s: left out"))
            continue
        row = _last_json(out)
        if row is None:
            writer.write(records.jit(f"flashinfer decode {key[0]} d{key[1]}", False, 0.0, f"no result (rc {proc.returncode}): {out[-600:]}"))
            continue
        writer.write(records.jit(row["what"], row["ok"], row["seconds"], row.get("error", "")))
        if row["ok"]:
            ready.add(key)
    return ready


def _last_json(text):
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None

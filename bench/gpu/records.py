"""The suite's raw output: one JSON object per line in suite.jsonl, written as the suite goes (a run cut short
keeps what it measured). Every record has "kind"; make_report.py reads nothing else. Standard library only.

kinds and their keys:
  machine     date_utc, gpu, driver, sms, l2_bytes, memory_bytes, python, torch, cuda, cudnn, flashinfer,
              flashinfer_error, leanattn, leanattn_cuda, leanattn_error, command, mode, budget_s, timing
  copy        when (start|end), bytes_moved, median_us, p10_us, p90_us, reps, gbps
  calibration what, median_us, p10_us, p90_us, reps                (a graph of one tiny kernel)
  validate    tool (cli|api), case, args, dtype, layout, ok, worst_rel_l2, seconds, rc, detail
  jit         what, ok, seconds, error                       (FlashInfer's kernels compiled at first use)
  result      section, case, shape{...}, kv_bytes, copy_gbps, floor_us, peer, method, rel_l2, ok,
              median_us, p10_us, p90_us, reps, gbps, fraction_of_floor, error
  hash        case, peer, runs, identical, sha256, error
  skipped     section, case, why
  note        text
  done        elapsed_s, budget_s, completed
"""
import json
import time


def machine(**fields):
    return {"kind": "machine", **fields}


def copy(when, bytes_moved, stats):
    return {"kind": "copy", "when": when, "bytes_moved": bytes_moved, **stats,
            "gbps": bytes_moved / (stats["median_us"] * 1e-6) / 1e9}


def calibration(what, stats):
    return {"kind": "calibration", "what": what, **stats}


def validate(tool, case, args, dtype, layout, ok, worst_rel_l2, seconds, rc=0, detail=""):
    return {"kind": "validate", "tool": tool, "case": case, "args": args, "dtype": dtype, "layout": layout, "ok": ok,
            "worst_rel_l2": worst_rel_l2, "seconds": seconds, "rc": rc, "detail": detail}


def jit(what, ok, seconds, error=""):
    return {"kind": "jit", "what": what, "ok": ok, "seconds": seconds, "error": error}


def result(shape, peer, copy_gbps, method=None, rel_l2=None, ok=None, stats=None, error=""):
    """One peer on one shape: its check against float64, then (if it passed) its timing."""
    floor_us = shape.kv_bytes / (copy_gbps * 1e9) * 1e6
    r = {"kind": "result", "section": shape.section, "case": shape.name, "shape": shape.as_dict(), "kv_bytes": shape.kv_bytes,
         "copy_gbps": copy_gbps, "floor_us": floor_us, "peer": peer, "method": method, "rel_l2": rel_l2, "ok": ok}
    if stats:
        r.update(stats)
        r["gbps"] = shape.kv_bytes / (stats["median_us"] * 1e-6) / 1e9
        r["fraction_of_floor"] = floor_us / stats["median_us"]
    if error:
        r["error"] = error
    return r


def hash_check(case, peer, runs, identical, sha256, error=""):
    return {"kind": "hash", "case": case, "peer": peer, "runs": runs, "identical": identical, "sha256": sha256, "error": error}


def skipped(section, case, why):
    return {"kind": "skipped", "section": section, "case": case, "why": why}


def note(text):
    return {"kind": "note", "text": text}


def done(elapsed_s, budget_s, completed):
    return {"kind": "done", "elapsed_s": elapsed_s, "budget_s": budget_s, "completed": completed}


class Writer:
    """Appends records to a JSONL file, flushed line by line."""

    def __init__(self, path):
        self.path = path
        self.file = open(path, "a", buffering=1)
        self.start = time.monotonic()

    def write(self, record):
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()
        return record

    def close(self):
        self.file.close()


def open_text(path):
    """A text file for reading: FILE.xz decompressed, or FILE, where only FILE.xz exists (raw results over 2 KB are
    kept xz-compressed: bench/results/raw/README.md), else FILE itself."""
    import lzma
    import pathlib

    path = pathlib.Path(path)
    compressed = path.with_name(path.name + ".xz")
    if path.suffix == ".xz":
        return lzma.open(path, "rt")
    return lzma.open(compressed, "rt") if not path.exists() and compressed.exists() else open(path)


def read(path):
    """Every record of a suite.jsonl (or of its xz-compressed copy: open_text); lines that are not JSON objects (a torn
    last line) are skipped."""
    out = []
    with open_text(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    return out

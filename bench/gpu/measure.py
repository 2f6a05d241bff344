"""Checks and times the peers on one shape, and the 100-run bitwise check of leanattn's strategies.

For each peer: prepare (plan, allocate), poison its output with NaN, run once, compare with the float64
reference (rel. L2 within the dtype's tolerance, every element finite); only a peer that passes is timed
(timing.py), and after the timing the output of the last graph replay is checked again (a capture that lost a
step shows there). Each outcome is one `result` record (records.py), refusals and errors included.
"""
import hashlib
import time

import torch

import estimate
import records
from inputs import TOLERANCE, Inputs, rel_l2, sync
from peers import LEANATTN_STRATEGIES, LeanattnPeer
from timing import Timer


class ContextLost(RuntimeError):
    """The CUDA context broke (an illegal address, say): nothing more can run in this process."""


def _why(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:300] if text else ''}"


def _context_alive():
    try:
        sync()
        return True
    except Exception:
        return False


def _check(run, ref):
    run.poison()
    sync()
    out = run()
    sync()
    return rel_l2(out, ref)


def measure(peer, inputs, ref, timer, copy_gbps, min_reps=100):
    """One result record for `peer` on `inputs` (checked, then timed if it passed)."""
    shape = inputs.shape
    tol = TOLERANCE[shape.dtype]
    run = graph = None
    try:
        run = peer.prepare(inputs)
        err = _check(run, ref)
        note = ""
        if not err <= tol and hasattr(peer, "prepare_copy"):
            first = err
            del run
            run = peer.prepare_copy(inputs)
            err = _check(run, ref)
            note = f"{run.note} (the view gave rel L2 {first:.3g})"
        if not err <= tol:
            return records.result(shape, peer.name, copy_gbps, rel_l2=err, ok=False, error=f"rel L2 {err:.3g} over tolerance {tol:g}: not timed")
        graph, graph_out, why = timer.capture(run)
        op_guess = estimate.op_us(shape, peer.name, copy_gbps * 1e9)
        stats = timer.time(run, estimate.reps_for(op_guess, min_reps), graph)
        r = records.result(shape, peer.name, copy_gbps, "graph" if graph is not None else "eager", err, True, stats)
        if graph is not None:
            r["replay_rel_l2"] = rel_l2(graph_out, ref)
            if not r["replay_rel_l2"] <= tol:
                r["ok"] = False
                r["error"] = f"the graph replay's output is off (rel L2 {r['replay_rel_l2']:.3g})"
        else:
            note = (note + "; " if note else "") + f"not capturable, timed eagerly ({why})"
        if note:
            r["note"] = note
        return r
    except torch.cuda.OutOfMemoryError as e:
        return records.result(shape, peer.name, copy_gbps, error=f"out of memory: {_why(e)}")
    except Exception as e:  # a peer that refuses this shape says why
        if not _context_alive():
            raise ContextLost(f"{peer.name} on {shape.name}: {_why(e)}") from e
        return records.result(shape, peer.name, copy_gbps, error=_why(e))
    finally:
        del run, graph


def run_shape(shape, peers, timer, copy_gbps, writer, seed=1, min_reps=100):
    """Inputs, reference, then every peer; returns the records written."""
    written = []
    try:
        inputs = Inputs(shape, seed)
        ref = inputs.reference()
    except torch.cuda.OutOfMemoryError as e:
        torch.cuda.empty_cache()
        return [writer.write(records.skipped(shape.section, shape.name, f"inputs do not fit: {_why(e)}"))]
    for peer in peers:
        written.append(writer.write(measure(peer, inputs, ref, timer, copy_gbps, min_reps)))
        torch.cuda.empty_cache()
    del inputs, ref
    torch.cuda.empty_cache()
    return written


def hash_check(shape, writer, runs=100, seed=1):
    """Each leanattn strategy replayed `runs` times from one CUDA graph, the output poisoned before each replay:
    how many outputs equal the first bit for bit, and the first's sha256."""
    inputs = Inputs(shape, seed)
    ref = inputs.reference()
    for strategy in LEANATTN_STRATEGIES:
        name = f"leanattn/{strategy}"
        try:
            run = LeanattnPeer(strategy).prepare(inputs)
            graph, out, _ = Timer.capture(run)
            replay = graph.replay if graph is not None else run
            out = out if graph is not None else run()
            first, identical = None, 0
            for _ in range(runs):
                run.poison()
                replay()
                sync()
                if first is None:
                    first = out.clone()
                identical += int(torch.equal(out.view(torch.int16), first.view(torch.int16)))
            digest = hashlib.sha256(first.view(torch.int16).cpu().numpy().tobytes()).hexdigest()
            rec = records.hash_check(shape.name, name, runs, identical, digest)
            rec["rel_l2"] = rel_l2(first, ref)
            writer.write(rec)
        except Exception as e:
            if not _context_alive():
                raise ContextLost(f"{name} on {shape.name}: {_why(e)}") from e
            writer.write(records.hash_check(shape.name, name, runs, 0, "", _why(e)))
    del inputs, ref
    torch.cuda.empty_cache()


def timed_sections(shapes, peers_of, timer, copy_gbps, writer, budget, log, seed=1, min_reps=100):
    """Every shape in order while the budget allows; the rest recorded as skipped."""
    for shape in shapes:
        peers = peers_of(shape)
        est = sum(estimate.peer_seconds(shape, p.name, copy_gbps * 1e9, min_reps) for p in peers) + estimate.SHAPE_SETUP_S \
            + shape.kv_bytes * estimate.SETUP_S_PER_BYTE
        if not budget.allows(est):
            writer.write(records.skipped(shape.section, shape.name, f"time budget: ~{est * budget.factor():.0f} s needed, "
                                                                    f"{budget.remaining():.0f} s left"))
            continue
        start = time.monotonic()
        rows = run_shape(shape, peers, timer, copy_gbps, writer, seed, min_reps)
        budget.record(est, time.monotonic() - start)
        log.progress(shape, rows, budget)

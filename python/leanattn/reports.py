"""leanattn.schedule and leanattn.simulate: what `leanattn schedule --format json` and `leanattn simulate
--format json` print, as dicts (the CLI's own writers, through the C ABI)."""
import ctypes
import json

from . import _library as L

_SIM_DTYPES = {"fp16": L.FP16, "bf16": L.BF16, "fp32": L.FP32}


def _problem(batch, heads, kv_heads, head_dim, ctx, q_len, tile, tile_rows):
    batch = L.as_int64("batch", batch)
    if isinstance(ctx, int) and not isinstance(ctx, bool):
        ctx = [ctx] * L.check_batch(batch)
    elif isinstance(ctx, (list, tuple)):
        ctx = list(ctx)
    else:
        raise TypeError(f"ctx must be an int or a list of ints, got {type(ctx).__name__}")
    return L.make_problem(batch, heads, heads if kv_heads is None else kv_heads, head_dim, q_len, ctx, tile, tile_rows)


def schedule(*, batch=1, heads=32, kv_heads=None, head_dim=128, ctx=4096, q_len=1, tile=0, tile_rows=0, strategy="stream-k", splits=0, grid=0,
             device="h100-sxm", stream_k_rule=None, snap=0, lengths=None):
    """The plan of one strategy for a problem: {"strategy", "grid", "launches", "total_tiles", "device", "problem", "ctas", "outputs"}.
    lengths: with strategy="auto", the kind of step weighed for, "device" (None) or "host" (DecodePlan's lengths)."""
    problem, _keep = _problem(batch, heads, kv_heads, head_dim, ctx, q_len, tile, tile_rows)
    options = L.make_options(strategy, splits, grid, device, stream_k_rule=stream_k_rule, snap=snap, lengths=lengths)
    return json.loads(L.take_string(L.lib.leanattn_schedule_json, ctypes.byref(problem), ctypes.byref(options)))


def simulate(*, batch=1, heads=32, kv_heads=None, head_dim=128, ctx=4096, q_len=1, tile=0, tile_rows=0, strategy="all", splits=0, grid=0,
             device="h100-sxm", dtype="fp16", stream_k_rule=None, snap=0, lengths=None):
    """Each strategy played out on a model of the device: {"device", "problem", "dtype", "results": [...]}.
    lengths: as schedule()'s."""
    if dtype not in _SIM_DTYPES:
        raise ValueError(f"dtype {dtype!r}: expected fp16, bf16 or fp32")
    problem, _keep = _problem(batch, heads, kv_heads, head_dim, ctx, q_len, tile, tile_rows)
    options = L.make_options(strategy, splits, grid, device, stream_k_rule=stream_k_rule, snap=snap, lengths=lengths)
    return json.loads(L.take_string(L.lib.leanattn_simulate_json, ctypes.byref(problem), ctypes.byref(options), _SIM_DTYPES[dtype]))

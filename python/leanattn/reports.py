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


def _plan_for(plan_for):
    if plan_for not in ("lengths", "capacity"):
        raise ValueError(f"plan_for must be \"lengths\" or \"capacity\", got {plan_for!r}")
    return plan_for.encode()


def schedule(*, batch=1, heads=32, kv_heads=None, head_dim=128, ctx=4096, q_len=1, tile=0, tile_rows=0, strategy="stream-k", splits=0, grid=0,
             device="h100-sxm", stream_k_rule=None, snap=0, lengths=None, plan_for="lengths"):
    """The plan of one strategy for a problem: {"strategy", "grid", "launches", "total_tiles", "device", "problem", "ctas", "outputs"}.
    With strategy="auto", "auto" lists every plan weighed (strategy, grid, splits, predicted_us).
    lengths: with strategy="auto", the kind of step weighed for, "device" (None) or "host" (DecodePlan's lengths).
    plan_for: "lengths" (ctx as given) or, with strategy="auto", "capacity": ctx is a cache's capacity whose steps run at
    live lengths up to it, and each plan is weighed there and at ragged lengths below, as DecodePlan plans."""
    problem, _keep = _problem(batch, heads, kv_heads, head_dim, ctx, q_len, tile, tile_rows)
    options = L.make_options(strategy, splits, grid, device, stream_k_rule=stream_k_rule, snap=snap, lengths=lengths)
    return json.loads(L.take_string(L.lib.leanattn_schedule_json_plan_for, ctypes.byref(problem), ctypes.byref(options), _plan_for(plan_for)))


def simulate(*, batch=1, heads=32, kv_heads=None, head_dim=128, ctx=4096, q_len=1, tile=0, tile_rows=0, strategy="all", splits=0, grid=0,
             device="h100-sxm", dtype="fp16", stream_k_rule=None, snap=0, lengths=None, plan_for="lengths"):
    """Each strategy played out on a model of the device: {"device", "kernel", "problem", "dtype", "results": [...]}.
    "kernel" names the kernel model that played the plans: the paper's, or with strategy="auto" the one auto weighed with
    (so the result's makespan_us is the time auto predicted). lengths, plan_for: as schedule()'s."""
    if dtype not in _SIM_DTYPES:
        raise ValueError(f"dtype {dtype!r}: expected fp16, bf16 or fp32")
    problem, _keep = _problem(batch, heads, kv_heads, head_dim, ctx, q_len, tile, tile_rows)
    options = L.make_options(strategy, splits, grid, device, stream_k_rule=stream_k_rule, snap=snap, lengths=lengths)
    return json.loads(L.take_string(L.lib.leanattn_simulate_json_plan_for, ctypes.byref(problem), ctypes.byref(options), _SIM_DTYPES[dtype],
                                    _plan_for(plan_for)))

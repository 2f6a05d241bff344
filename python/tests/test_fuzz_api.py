"""Random calls to the Python API, drawn from the command-line fuzzer's value pools (tests/fuzz/value_pools.json):
leanattn.schedule, simulate, decode and DecodePlan on CPU tensors return a result or raise ValueError/TypeError,
never anything else and never a crash. Seeded: a failure prints the call to replay."""
import json
import math
import pathlib
import random

import pytest
import torch

import leanattn

POOLS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "tests" / "fuzz" / "value_pools.json").read_text())
ALLOWED = (ValueError, TypeError)


@pytest.fixture(autouse=True)
def small_limits(monkeypatch):
    # The library reads the limits at every call: small ones keep every valid random call fast.
    monkeypatch.setenv("LEANATTN_MAX_MEMORY", "64M")
    monkeypatch.setenv("LEANATTN_MAX_WORK", "5e8")


def integer_or_garbage(rng, flag):
    """A valid value of the flag 80% of the time (as an int, or a list for a ctx list), else an edge integer or garbage."""
    r = rng.random()
    if r < 0.8:
        text = rng.choice(POOLS["valid"][flag])
        return [int(x) for x in text.split(",")] if "," in text else int(text)
    if r < 0.9:
        return int(rng.choice(POOLS["edge_integers"]))
    return rng.choice(POOLS["garbage"] + [None, True, 2.5, float("nan"), [], [1, "a"], {"a": 1}, 2 ** 70, -(2 ** 70)])


def random_report_kwargs(rng):
    kwargs = {}
    for name, flag in (("batch", "batch"), ("heads", "heads"), ("kv_heads", "kv-heads"), ("head_dim", "head-dim"), ("ctx", "ctx"),
                       ("q_len", "q-len"), ("tile", "tile"), ("splits", "splits"), ("grid", "grid"), ("snap", "snap")):
        if rng.random() < 0.4:
            kwargs[name] = integer_or_garbage(rng, flag)
    if rng.random() < 0.5:
        kwargs["strategy"] = rng.choice(POOLS["strategies"] + [None, 3])
    if rng.random() < 0.3:
        kwargs["device"] = rng.choice(POOLS["devices"] + [None, 5, "a\0b"])
    if rng.random() < 0.1:
        kwargs["stream_k_rule"] = rng.choice(POOLS["stream_k_rules"] + [7])
    return kwargs


@pytest.mark.parametrize("call", ["schedule", "simulate"])
def test_random_report_calls_return_a_dict_or_raise_value_or_type_error(call):
    rng = random.Random(1)
    fn = getattr(leanattn, call)
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(400):
        kwargs = random_report_kwargs(rng)
        if call == "simulate" and rng.random() < 0.2:
            kwargs["dtype"] = rng.choice(POOLS["dtypes"] + [None])
        try:
            result = fn(**kwargs)
        except ALLOWED:
            outcomes["refused"] += 1
            continue
        except Exception as e:  # noqa: BLE001 — anything else is the failure this test looks for
            pytest.fail(f"leanattn.{call}(**{kwargs!r}) raised {type(e).__name__}: {e}")
        assert isinstance(result, dict), kwargs
        outcomes["ok"] += 1
    assert outcomes["ok"] > 20 and outcomes["refused"] > 20, outcomes  # both sides of the contract were exercised


def random_shape(rng):
    pick = lambda flag: int(rng.choice(POOLS["valid"][flag]).split(",")[0])  # noqa: E731
    batch, kv_heads, d = pick("batch"), pick("kv-heads"), rng.choice([16, 32, 64])
    q_heads = kv_heads * rng.choice([1, 2, 4])
    if rng.random() < 0.15:
        q_heads += 1  # not a multiple
    return batch, rng.choice([1, 1, 2]), q_heads, kv_heads, d, rng.choice([1, 17, 64, 200])


def random_tensors(rng):
    batch, q_len, q_heads, kv_heads, d, n = random_shape(rng)
    dtype = rng.choice([torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32])
    make = (lambda *s: torch.randn(*s).to(dtype)) if dtype.is_floating_point else (lambda *s: torch.zeros(*s, dtype=dtype))
    q = make(batch, q_len, q_heads, d)
    paged = rng.random() < 0.3
    block_table = None
    if paged:
        block = rng.choice([1, 16, 64, 300])
        blocks = batch * max(1, math.ceil(n / block))
        k, v = make(blocks, block, kv_heads, d), make(blocks, block, kv_heads, d)
        block_table = torch.randint(-2, blocks + 2 if rng.random() < 0.2 else blocks, (batch, max(1, math.ceil(n / block))), dtype=torch.int32)
    else:
        k, v = make(batch, n, kv_heads, d), make(batch, n, kv_heads, d)
    lengths = [rng.choice([n, 1, q_len, 0, -1, n + 1, 2 ** 31 - 1]) if rng.random() < 0.2 else rng.randint(min(q_len, n), n) for _ in range(batch)]
    seqlens = torch.tensor(lengths, dtype=torch.int32 if rng.random() < 0.9 else torch.int64)
    # Wrong in a few ways at once now and then: a transposed view, a dimension too many, a mismatched V.
    if rng.random() < 0.1:
        k = k.transpose(1, 2)
    if rng.random() < 0.05:
        q = q.unsqueeze(0)
    if rng.random() < 0.05:
        v = v[..., : d // 2]
    if rng.random() < 0.05:
        seqlens = seqlens[:-1]
    return q, k, v, seqlens, block_table


def test_random_decode_calls_on_cpu_tensors_return_or_raise_value_or_type_error():
    rng = random.Random(2)
    outcomes = {"ok": 0, "refused": 0}
    for i in range(300):
        q, k, v, seqlens, block_table = random_tensors(rng)
        strategy = rng.choice(["stream-k", "fixed-split", "no-split", "all", 5])
        plan_first = rng.random() < 0.3
        try:
            if plan_first:
                plan = leanattn.DecodePlan(q, k, v, block_table, strategy=strategy)
                out = plan.run(q, k, v, seqlens, block_table)
            else:
                out = leanattn.decode(q, k, v, seqlens, block_table, strategy=strategy, return_lse=rng.random() < 0.3)
        except ALLOWED:
            outcomes["refused"] += 1
            continue
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"case {i}: q {tuple(q.shape)} {q.dtype}, k {tuple(k.shape)}, seqlens {seqlens.tolist()}, "
                        f"paged {block_table is not None}, strategy {strategy!r}: {type(e).__name__}: {e}")
        out = out[0] if isinstance(out, tuple) else out
        assert out.shape == q.shape and bool(torch.isfinite(out.float()).all()), i
        outcomes["ok"] += 1
    assert outcomes["ok"] > 20 and outcomes["refused"] > 20, outcomes

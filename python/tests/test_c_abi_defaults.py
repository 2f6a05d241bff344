"""The C ABI's zero fields take their documented defaults (leanattn.h)."""
import ctypes
import json

from leanattn import _library as L


def test_a_zero_q_len_is_one_new_token_per_request():
    problem, _ctx = L.make_problem(batch=2, q_heads=8, kv_heads=2, head_dim=64, q_len=0, ctx=[300, 100])
    plan = L.PlanP()
    L.check(L.lib.leanattn_plan_create(ctypes.byref(problem), L.FP16, L.DEVICE_CPU, None, ctypes.byref(plan)))
    try:
        text = L.take_string(L.lib.leanattn_plan_json, plan)
        assert json.loads(text)["problem"]["q_len"] == 1
    finally:
        L.lib.leanattn_plan_destroy(plan)

"""strategy="auto" through the C ABI on CPU tensors: the plan a kernel model predicts fastest, computing the same
attention as the fixed strategies."""

import pytest
import torch

import leanattn
from conftest import TOLERANCE, make_cache, reference, rel_l2, uniform

STRATEGIES = {"stream-k", "fixed-split", "no-split"}


# Six short outputs (auto plans no-split on the CPU's default 132-SM device) and two long ones (it splits them).
SHAPES = {"short": (3, 500, 8, 2, 64, [500, 7, 260]), "long": (2, 5000, 8, 1, 64, [5000, 3333])}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("layout", ["token-major", "paged"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_auto_decodes_as_stream_k_does(shape, layout, dtype, generator):
    batch, capacity, q_heads, kv_heads, d, live = SHAPES[shape]
    q = uniform((batch, 1, q_heads, d), dtype, generator)
    k, v, table = make_cache(layout, batch, capacity, kv_heads, d, dtype, generator)
    lengths = torch.tensor(live, dtype=torch.int32)
    assert leanattn.DecodePlan(q, k, v, table, strategy="auto").to_dict()["strategy"] in STRATEGIES
    out, lse = leanattn.decode(q, k, v, lengths, block_table=table, strategy="auto", return_lse=True)
    ref_out, ref_lse = leanattn.decode(q, k, v, lengths, block_table=table, strategy="stream-k", return_lse=True)
    assert out.shape == q.shape and out.dtype == dtype
    assert rel_l2(out, ref_out.double()) <= TOLERANCE[dtype]
    assert (lse - ref_lse).abs().max().item() <= 1e-4
    exact, _ = reference(q, k, v, lengths, table)
    assert rel_l2(out, exact) <= TOLERANCE[dtype]


def test_auto_plans_one_of_the_three_strategies_and_splits_a_lone_long_output():
    # Planning only: the tensors give shapes, nothing is run.
    q = torch.empty(1, 1, 8, 128, dtype=torch.float16)
    k = torch.empty(1, 65536, 1, 128, dtype=torch.float16)  # one output of 64k tokens
    plan = leanattn.DecodePlan(q, k, k, strategy="auto", device="h100-sxm").to_dict()
    assert plan["strategy"] in STRATEGIES
    assert plan["strategy"] != "no-split"  # one CTA for 64k tokens leaves every other SM idle
    assert plan["grid"] > 1

    # One output per SM of h100-sxm and short contexts: nothing worth splitting, one whole output per CTA (no-split's
    # plan, or stream-k's, which is then the same plan: it ties and stream-k is weighed first).
    q = torch.empty(132, 1, 8, 128, dtype=torch.float16)
    k = torch.empty(132, 1024, 1, 128, dtype=torch.float16)
    plan = leanattn.DecodePlan(q, k, k, strategy="auto", device="h100-sxm").to_dict()
    assert plan["grid"] == 132
    assert plan["launches"] == 1


def test_auto_with_an_unknown_strategy_name_is_refused():
    q = torch.empty(1, 1, 4, 64)
    k = torch.empty(1, 32, 4, 64)
    with pytest.raises(Exception, match="auto"):
        leanattn.DecodePlan(q, k, k, strategy="automatic")


def test_the_schedule_report_of_auto_is_the_plan_auto_makes():
    q = torch.empty(1, 1, 71, 64, dtype=torch.float16)
    k = torch.empty(1, 16384, 1, 64, dtype=torch.float16)
    planned = leanattn.DecodePlan(q, k, k, strategy="auto", device="h100-sxm").to_dict()["strategy"]
    reported = leanattn.schedule(batch=1, heads=71, kv_heads=1, head_dim=64, ctx=16384, strategy="auto")["strategy"]
    assert reported == planned


def test_a_plan_and_a_report_of_auto_list_what_was_weighed():
    q = torch.empty(8, 1, 32, 128, dtype=torch.float16)
    k = torch.empty(8, 4096, 8, 128, dtype=torch.float16)
    plan = leanattn.DecodePlan(q, k, k, device="h100-sxm").to_dict()
    weighed = plan["auto"]
    assert weighed["planned_for"] == "capacity" and weighed["kernel"] == "leanattn-h100-host"  # DecodePlan's default lengths: host
    assert weighed["device"] == "h100-sxm"
    assert weighed["candidates"][0]["strategy"] == "stream-k"
    assert any(c["strategy"] == plan["strategy"] and c["predicted_us"] == weighed["predicted_us"] for c in weighed["candidates"])
    report = leanattn.schedule(batch=8, heads=32, kv_heads=8, head_dim=128, ctx=4096, strategy="auto")
    assert report["auto"]["planned_for"] == "lengths"
    assert "auto" not in leanattn.DecodePlan(q, k, k, strategy="stream-k").to_dict()
    assert "auto" not in leanattn.schedule(batch=8, heads=32, kv_heads=8, head_dim=128, ctx=4096)


def test_a_report_for_a_capacity_weighs_what_decodeplan_weighs():
    # Llama-3-8B's attention at 8 requests of 4096 tokens, as in the test below: the report for a cache of that capacity
    # is the plan DecodePlan makes there, weighed alike (both at the kernel model's one CTA per SM).
    shape = dict(batch=8, heads=32, kv_heads=8, head_dim=128, ctx=4096, strategy="auto", device="h100-sxm")
    exact = leanattn.schedule(**shape)
    capacity = leanattn.schedule(**shape, plan_for="capacity")
    assert exact["auto"]["planned_for"] == "lengths" and capacity["auto"]["planned_for"] == "capacity"
    q = torch.empty(8, 1, 32, 128, dtype=torch.float16)
    k = torch.empty(8, 4096, 8, 128, dtype=torch.float16)
    planned = leanattn.DecodePlan(q, k, k, device="h100-sxm", lengths="device").to_dict()
    assert (capacity["strategy"], capacity["grid"]) == (planned["strategy"], planned["grid"])
    assert capacity["auto"] == planned["auto"]
    assert [c["predicted_us"] for c in capacity["auto"]["candidates"]] != [c["predicted_us"] for c in exact["auto"]["candidates"]]
    simulated = leanattn.simulate(**shape, plan_for="capacity")
    assert simulated["auto"]["planned_for"] == "capacity" and simulated["results"][0]["strategy"] == capacity["strategy"]
    with pytest.raises(ValueError, match="plan_for"):
        leanattn.schedule(**shape, plan_for="cache")
    with pytest.raises(Exception, match="only applies to strategy"):
        leanattn.schedule(batch=8, heads=32, kv_heads=8, head_dim=128, ctx=4096, plan_for="capacity")


@pytest.mark.parametrize("batch, capacity, kv_heads", [(8, 4096, 8), (1, 16384, 1), (3, 700, 2)])
def test_a_cpu_plan_of_auto_is_the_plan_it_weighed(batch, capacity, kv_heads):
    # No device named: the plan is weighed on h100-sxm at its kernel model's CTAs per SM and made there, CTA for CTA
    # the plan the report for that capacity shows (not remade on the built-in figures' 2 CTAs per SM).
    q = torch.empty(batch, 1, 8 * kv_heads, 128, dtype=torch.float16)
    k = torch.empty(batch, capacity, kv_heads, 128, dtype=torch.float16)
    unnamed = leanattn.DecodePlan(q, k, k, lengths="device").to_dict()
    assert unnamed == leanattn.DecodePlan(q, k, k, lengths="device", device="h100-sxm").to_dict()
    assert unnamed["device"]["ctas_per_sm"] == 1
    report = leanattn.schedule(batch=batch, heads=8 * kv_heads, kv_heads=kv_heads, head_dim=128, ctx=capacity, strategy="auto", plan_for="capacity")
    assert report["auto"] == unnamed["auto"]
    assert report["ctas"] == unnamed["ctas"]


def test_a_plan_for_a_cache_is_weighed_at_ragged_live_lengths_too():
    # Llama-3-8B's attention at 8 requests of 4096 tokens. For these very lengths (a report) auto plans no-split on 64 of
    # the 132 SMs, read with half the warps; a DecodePlan serves live lengths up to that capacity, where those CTAs
    # stream alone for the longest requests and stream-k's walk spreads the LeanTiles (on an H100 stream-k ran 12-16%
    # ahead at ragged lengths), so it plans stream-k.
    reported = leanattn.schedule(batch=8, heads=32, kv_heads=8, head_dim=128, ctx=4096, strategy="auto", device="h100-sxm")
    assert (reported["strategy"], reported["grid"]) == ("no-split", 64)
    q = torch.empty(8, 1, 32, 128, dtype=torch.float16)
    k = torch.empty(8, 4096, 8, 128, dtype=torch.float16)
    for lengths in ("host", "device"):
        assert leanattn.DecodePlan(q, k, k, device="h100-sxm", lengths=lengths).to_dict()["strategy"] == "stream-k"


def test_the_kind_of_step_auto_weighs_for_is_an_option_and_a_bad_one_is_refused():
    q = torch.empty(1, 1, 28, 128, dtype=torch.float16)
    k = torch.empty(1, 16384, 4, 128, dtype=torch.float16)
    # (tests/app/test_calibrate_cli.cpp checks which model each kind of step is weighed with.)
    for lengths in ("host", "device"):
        plan = leanattn.DecodePlan(q, k, k, strategy="auto", device="h100-sxm", lengths=lengths).to_dict()
        assert plan["strategy"] in STRATEGIES and plan["grid"] >= 1
        assert plan["auto"]["kernel"] == ("leanattn-h100-host" if lengths == "host" else "leanattn-h100")
        for_capacity = leanattn.schedule(batch=1, heads=28, kv_heads=4, ctx=16384, strategy="auto", lengths=lengths, plan_for="capacity")
        assert for_capacity["auto"] == plan["auto"]  # the same model, on the same CTAs per SM
        reported = leanattn.schedule(batch=1, heads=28, kv_heads=4, ctx=16384, strategy="auto", lengths=lengths)
        assert reported["strategy"] in STRATEGIES and reported["grid"] >= 1
        simulated = leanattn.simulate(batch=1, heads=28, kv_heads=4, ctx=16384, strategy="auto", lengths=lengths)
        assert [r["strategy"] for r in simulated["results"]] == [reported["strategy"]]
        # played under the model auto weighed it with: the time auto predicted
        assert simulated["kernel"] == simulated["auto"]["kernel"] == plan["auto"]["kernel"]
        assert simulated["results"][0]["makespan_us"] == pytest.approx(simulated["auto"]["predicted_us"], rel=1e-9)
    assert leanattn.simulate(batch=1, heads=28, kv_heads=4, ctx=16384)["kernel"] == "paper"
    with pytest.raises(ValueError, match="lengths"):
        leanattn.DecodePlan(q, k, k, strategy="auto", lengths="gpu")
    with pytest.raises(Exception, match="lengths"):
        leanattn.schedule(strategy="auto", lengths="gpu")
    with pytest.raises(Exception, match="lengths"):  # checked whatever the strategy
        leanattn.schedule(strategy="stream-k", lengths="gpu")
    with pytest.raises(ValueError, match="lengths"):
        leanattn.DecodePlan(q, k, k, strategy="stream-k", lengths="gpu")


def test_the_default_strategy_is_auto():
    # Falcon-7B's attention at one request of 16k tokens (one KV head): the aligned rule plans it on 33 CTAs, auto on 80
    # (16 per output), which ran 15.2 us against 22.1 on an H100 (kernel v34's models table).
    q = torch.empty(1, 1, 71, 64, dtype=torch.float16)
    k = torch.empty(1, 16384, 1, 64, dtype=torch.float16)
    default = leanattn.DecodePlan(q, k, k, device="h100-sxm").to_dict()
    assert default == leanattn.DecodePlan(q, k, k, strategy="auto", device="h100-sxm").to_dict()
    assert default["grid"] != leanattn.DecodePlan(q, k, k, strategy="stream-k", device="h100-sxm").to_dict()["grid"]


@pytest.mark.parametrize("fixed", [{"splits": 4}, {"grid": 16}])
def test_auto_refuses_a_split_count_or_grid_instead_of_ignoring_it(fixed):
    q = torch.empty(1, 1, 8, 64)
    k = torch.empty(1, 4096, 1, 64)
    with pytest.raises(ValueError, match="auto.*name the strategy"):
        leanattn.DecodePlan(q, k, k, **fixed)  # the default strategy, auto
    strategy = "fixed-split" if "splits" in fixed else "stream-k"
    assert leanattn.DecodePlan(q, k, k, strategy=strategy, **fixed).to_dict()["strategy"] == strategy


def test_plans_made_on_many_threads_at_once_are_the_plans_made_one_at_a_time():
    # ctypes lets go of the GIL in each call, so these plans are made concurrently in the library: its parsed data files,
    # its per-thread kernel models and its last-error message must not mix threads (also checked under ThreadSanitizer).
    from concurrent.futures import ThreadPoolExecutor

    def plan(i):
        batch = 1 + i % 5
        q = torch.empty(batch, 1, 32, 128, dtype=torch.float16)
        k = torch.empty(batch, 600 + 997 * (i % 11), 8, 128, dtype=torch.float16)
        return leanattn.DecodePlan(q, k, k, strategy="auto", lengths="device" if i % 2 else "host").to_dict()

    alone = [plan(i) for i in range(24)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(plan, list(range(24)) * 3))
    assert together == alone * 3

"""leanattn.decode on CPU tensors: every cache layout, dtype, strategy and GQA group against float64."""
import math

import pytest
import torch

import leanattn
from conftest import TOLERANCE, make_cache, reference, rel_l2, uniform


@pytest.mark.parametrize("layout,block_size", [("token-major", 0), ("padded", 0), ("paged", 1), ("paged", 16), ("paged", 256)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_every_layout_matches_float64(layout, block_size, dtype, generator):
    batch, capacity, q_heads, kv_heads, d = 3, 300, 8, 2, 64
    q = uniform((batch, 1, q_heads, d), dtype, generator)
    k, v, table = make_cache(layout, batch, capacity, kv_heads, d, dtype, generator, block_size or 16)
    lengths = torch.tensor([300, 1, 137], dtype=torch.int32)
    out, lse = leanattn.decode(q, k, v, lengths, block_table=table, return_lse=True)
    ref, ref_lse = reference(q, k, v, lengths, table)
    assert out.shape == q.shape and out.dtype == dtype
    assert rel_l2(out, ref) <= TOLERANCE[dtype]
    assert (lse.double() - ref_lse).abs().max().item() <= 1e-3


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split"])
@pytest.mark.parametrize("group", [1, 4, 7])
def test_every_strategy_and_group(strategy, group, generator):
    q = uniform((2, 1, 3 * group, 32), torch.float32, generator)
    k, v, _ = make_cache("token-major", 2, 700, 3, 32, torch.float32, generator)
    lengths = torch.tensor([700, 333], dtype=torch.int32)
    out = leanattn.decode(q, k, v, lengths, strategy=strategy)
    assert rel_l2(out, reference(q, k, v, lengths)[0]) <= 1e-5


def test_several_query_tokens_decode_causally(generator):
    q = uniform((2, 4, 4, 32), torch.float32, generator)
    k, v, table = make_cache("paged", 2, 96, 2, 32, torch.float32, generator, 16)
    lengths = torch.tensor([96, 40], dtype=torch.int32)
    out = leanattn.decode(q, k, v, lengths, block_table=table)
    ref = reference(q, k, v, lengths, table)[0]
    assert rel_l2(out, ref) <= 1e-5
    assert not torch.equal(out[:, 0], out[:, 3])  # the first new token sees 3 tokens fewer than the last


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split"])
def test_an_empty_slot_gets_out_0_and_lse_minus_inf(strategy, generator):
    # A padded batch's slot of length 0, as on the GPU: no CTA visits it, and its rows are written all the same.
    q = uniform((3, 2, 4, 32), torch.float32, generator)
    k, v, table = make_cache("paged", 3, 96, 2, 32, torch.float32, generator, 16)
    lengths = torch.tensor([0, 96, 0], dtype=torch.int32)
    out, lse = torch.full_like(q, float("nan")), torch.full((3, 4, 2), float("nan"))
    leanattn.DecodePlan(q, k, v, table, strategy=strategy).run(q, k, v, lengths, table, out=out, lse=lse)
    ref, ref_lse = reference(q, k, v, lengths, table)
    assert torch.equal(out[[0, 2]], torch.zeros_like(out[[0, 2]])) and torch.all(lse[[0, 2]] == -math.inf)
    assert rel_l2(out[1:2], ref[1:2]) <= 1e-5 and (lse[1].double() - ref_lse[1]).abs().max().item() <= 1e-5


def test_strided_q_and_a_softmax_scale(generator):
    wide = uniform((2, 1, 8, 96), torch.float32, generator)
    q = wide[..., 16:80]  # head_dim 64 taken out of a wider tensor: strides (768, 768, 96, 1)
    k, v, _ = make_cache("padded", 2, 200, 8, 64, torch.float32, generator)
    lengths = torch.tensor([200, 5], dtype=torch.int32)
    out = leanattn.decode(q, k, v, lengths, softmax_scale=0.3)
    assert rel_l2(out, reference(q, k, v, lengths, scale=0.3)[0]) <= 1e-5


def test_a_plan_runs_again_as_lengths_grow(generator):
    q = uniform((2, 1, 4, 32), torch.float16, generator)
    k, v, table = make_cache("paged", 2, 64, 2, 32, torch.float16, generator, 8)
    plan = leanattn.DecodePlan(q, k, v, table)
    out = torch.full_like(q, float("nan"))
    lengths = torch.tensor([1, 3], dtype=torch.int32)
    for step in range(60):  # crosses LeanTile and block boundaries
        out.fill_(float("nan"))
        plan.run(q, k, v, lengths, table, out=out)
        assert rel_l2(out, reference(q, k, v, lengths, table)[0]) <= 1e-3, step
        lengths += torch.tensor([1, 1], dtype=torch.int32)
        lengths.clamp_(max=64)


def test_a_plan_takes_stream_k_grid_and_matches_float64_on_it(generator):
    q = uniform((2, 1, 8, 64), torch.float16, generator)
    k, v, _ = make_cache("token-major", 2, 1024, 2, 64, torch.float16, generator)
    lengths = torch.tensor([1000, 700], dtype=torch.int32)
    for grid in (3, 7):
        plan = leanattn.DecodePlan(q, k, v, strategy="stream-k", grid=grid)
        assert plan.to_dict()["grid"] == grid
        out = torch.full_like(q, float("nan"))
        plan.run(q, k, v, lengths, out=out)
        assert rel_l2(out, reference(q, k, v, lengths)[0]) <= 1e-3, grid
    with pytest.raises(ValueError, match="grid"):
        leanattn.DecodePlan(q, k, v, strategy="no-split", grid=3)


def test_the_result_is_bitwise_identical_run_to_run(generator):
    q = uniform((4, 1, 8, 64), torch.bfloat16, generator)
    k, v, _ = make_cache("token-major", 4, 1000, 4, 64, torch.bfloat16, generator)
    lengths = torch.tensor([1000, 10, 999, 517], dtype=torch.int32)
    first = leanattn.decode(q, k, v, lengths)
    for _ in range(5):
        assert torch.equal(leanattn.decode(q, k, v, lengths), first)


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split"])
def test_row_blocks_match_float64_and_one_tile(strategy, generator):
    # 7 query heads per KV head x 3 new tokens = 21 rows: tiles of 4 rows cut each KV head into 6 row blocks
    # (five of 4 rows and a last of 1), each reading the KV head's K and V itself.
    q = uniform((2, 3, 14, 32), torch.float32, generator)
    k, v, table = make_cache("paged", 2, 200, 2, 32, torch.float32, generator, 16)
    lengths = torch.tensor([200, 57], dtype=torch.int32)
    blocked = leanattn.DecodePlan(q, k, v, table, strategy=strategy, tile_rows=4)
    assert len(blocked.to_dict()["outputs"]) == 2 * 2 * 6
    out = torch.full_like(q, float("nan"))
    blocked.run(q, k, v, lengths, table, out=out)
    assert rel_l2(out, reference(q, k, v, lengths, table)[0]) <= 1e-5
    if strategy == "no-split":  # no partials to merge: each row is computed exactly as in one tile of all 21
        whole = leanattn.DecodePlan(q, k, v, table, strategy=strategy, tile_rows=21)
        assert len(whole.to_dict()["outputs"]) == 2 * 2
        assert torch.equal(out, whole.run(q, k, v, lengths, table))


def test_a_smaller_lean_tile_cuts_the_work_finer(generator):
    # One request of 1000 tokens at head dim 32: the default LeanTile of 256 tokens makes 4 per output, 64 makes 16.
    q = uniform((1, 1, 4, 32), torch.float32, generator)
    k, v, table = make_cache("token-major", 1, 1000, 2, 32, torch.float32, generator)
    lengths = torch.tensor([1000], dtype=torch.int32)
    default, fine = (leanattn.DecodePlan(q, k, v, table, tile=t).to_dict() for t in (0, 64))
    assert (default["problem"]["tile"], fine["problem"]["tile"]) == (256, 64)
    assert fine["total_tiles"] == 4 * default["total_tiles"]
    out = torch.full_like(q, float("nan"))
    leanattn.DecodePlan(q, k, v, table, tile=64).run(q, k, v, lengths, table, out=out)
    assert rel_l2(out, reference(q, k, v, lengths, table)[0]) <= 1e-5


def test_schedule_reports_row_blocks():
    plan = leanattn.schedule(heads=71, kv_heads=1, ctx=1000, tile_rows=16, strategy="no-split")
    rows = [(o["first_row"], o["rows"]) for o in plan["outputs"]]
    assert rows == [(0, 15), (15, 15), (30, 15), (45, 15), (60, 11)]  # 71 rows in 5 blocks of at most 16


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split"])
def test_out_may_be_q_itself_and_other_overlaps_are_refused(strategy, generator):
    q = uniform((2, 2, 8, 64), torch.float16, generator)
    k, v, _ = make_cache("token-major", 2, 500, 2, 64, torch.float16, generator)
    lengths = torch.tensor([500, 77], dtype=torch.int32)
    plan = leanattn.DecodePlan(q, k, v, strategy=strategy)
    separate = plan.run(q, k, v, lengths)
    in_place = q.clone()
    assert plan.run(in_place, k, v, lengths, out=in_place) is in_place
    assert torch.equal(in_place, separate)
    # out a head further along q, out inside the K cache: refused, naming what it overlaps
    storage = torch.empty(q.numel() + 64, dtype=q.dtype)
    shifted_q, shifted_out = storage[:q.numel()].view(q.shape), storage[64:].view(q.shape)
    shifted_q.copy_(q)
    with pytest.raises(ValueError, match="overlaps q"):
        plan.run(shifted_q, k, v, lengths, out=shifted_out)
    with pytest.raises(ValueError, match="overlaps k_cache"):
        plan.run(q, k, v, lengths, out=k.view(-1)[:q.numel()].view(q.shape))


def test_mqa_caches_whose_strides_differ_only_on_their_one_head_are_one_layout(generator):
    # k (B, N, 1, d) contiguous and v made (B, 1, N, d) then transposed: the same memory layout, whose size-1 head
    # dimension has a stride of its own in each. Both go in, and the result is the reference's.
    batch, n, d = 2, 40, 64
    q = uniform((batch, 1, 4, d), torch.float32, generator)
    k = uniform((batch, n, 1, d), torch.float32, generator)
    v = uniform((batch, 1, n, d), torch.float32, generator).transpose(1, 2)
    assert k.stride() != v.stride()
    lengths = torch.tensor([40, 17], dtype=torch.int32)
    out = leanattn.decode(q, k, v, lengths)
    ref, _ = reference(q, k, v, lengths)
    assert rel_l2(out, ref) < TOLERANCE[torch.float32]

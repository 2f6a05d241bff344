"""leanattn.decode on CUDA tensors: every layout against PyTorch's SDPA and float64, a CUDA graph replayed while
the lengths grow, the custom op under torch.compile, and no allocation inside a planned run. Skipped without a GPU."""
import json
import math
import os
import pathlib

import pytest
import torch
import torch.nn.functional as F

import leanattn
from conftest import TOLERANCE, has_gpu, make_cache, reference, rel_l2, uniform

pytestmark = pytest.mark.skipif(not (has_gpu and leanattn.has_cuda()),
                                reason="needs a CUDA GPU and a libleanattn built with CUDA")


def sdpa(q, k, v, lengths, table=None):
    """PyTorch's scaled_dot_product_attention, request by request over its first `length` tokens."""
    batch, q_len, q_heads, d = q.shape
    out = torch.empty_like(q)
    for b in range(batch):
        n = int(lengths[b])
        if table is None:
            kb, vb = k[b, :n], v[b, :n]
        else:
            ids = table[b, : (n + k.shape[1] - 1) // k.shape[1]].long()
            kb, vb = k[ids].flatten(0, 1)[:n], v[ids].flatten(0, 1)[:n]
        group = q_heads // kb.shape[1]
        kb = kb.transpose(0, 1).repeat_interleave(group, 0)[None]
        vb = vb.transpose(0, 1).repeat_interleave(group, 0)[None]
        mask = torch.ones(q_len, n, dtype=torch.bool, device=q.device).tril(n - q_len)
        out[b] = F.scaled_dot_product_attention(q[b].transpose(0, 1)[None], kb, vb, attn_mask=mask)[0].transpose(0, 1)
    return out


@pytest.mark.parametrize("layout,block_size", [("token-major", 0), ("padded", 0), ("paged", 1), ("paged", 16), ("paged", 256)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("group,d", [(1, 64), (2, 128), (4, 128), (8, 64)])
def test_every_layout_matches_sdpa_and_float64(layout, block_size, dtype, group, d, generator):
    batch, capacity, kv_heads = 3, 1500, 2
    q = uniform((batch, 1, kv_heads * group, d), dtype, generator, "cuda")
    k, v, table = make_cache(layout, batch, capacity, kv_heads, d, dtype, generator, block_size or 16, "cuda")
    lengths = torch.tensor([1500, 1, 700], dtype=torch.int32, device="cuda")
    for strategy in ("stream-k", "fixed-split", "no-split"):
        out = leanattn.decode(q, k, v, lengths, block_table=table, strategy=strategy)
        assert rel_l2(out, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[dtype], strategy
        assert rel_l2(out, sdpa(q, k, v, lengths, table).double().cpu()) <= 2 * TOLERANCE[dtype], strategy


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("q_heads,kv_heads,d,q_len", [(71, 1, 64, 1), (71, 1, 64, 4), (28, 4, 128, 4), (32, 32, 96, 1), (16, 8, 256, 4),
                                                       (128, 1, 128, 8)])
def test_every_model_class_matches_sdpa_and_float64(q_heads, kv_heads, d, q_len, dtype, generator):
    # MQA (Falcon-7B's 71 heads: 5 row blocks of 16 rows; at q_len 4, 18), a group of 7 with 4 new tokens (2 blocks),
    # head dim 96 (Phi-3-mini), head dim 256 with speculative tokens (Gemma 2), 1,024 rows over one KV head.
    batch, capacity = 2, 900
    q = uniform((batch, q_len, q_heads, d), dtype, generator, "cuda")
    k, v, table = make_cache("paged", batch, capacity, kv_heads, d, dtype, generator, 16, "cuda")
    lengths = torch.tensor([900, 2 * q_len + 3], dtype=torch.int32, device="cuda")
    for strategy in ("stream-k", "fixed-split", "no-split", "auto"):
        out = leanattn.decode(q, k, v, lengths, block_table=table, strategy=strategy)
        assert rel_l2(out, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[dtype], strategy
        assert rel_l2(out, sdpa(q, k, v, lengths, table).double().cpu()) <= 2 * TOLERANCE[dtype], strategy


@pytest.mark.parametrize("tile_rows", [32, 128])
def test_larger_row_blocks_through_the_plan(tile_rows, generator):
    # Falcon-7B's 71 query heads at q_len 4 (284 rows) in tiles of 32 (9 blocks) or 128 (3 blocks, teams of warps).
    q = uniform((2, 4, 71, 64), torch.float16, generator, "cuda")
    k, v, table = make_cache("paged", 2, 600, 1, 64, torch.float16, generator, 16, "cuda")
    lengths = torch.tensor([600, 11], dtype=torch.int32, device="cuda")
    for strategy in ("stream-k", "fixed-split", "no-split"):
        plan = leanattn.DecodePlan(q, k, v, table, strategy=strategy, tile_rows=tile_rows)
        assert len(plan.to_dict()["outputs"]) == 2 * -(-284 // tile_rows)
        out = torch.full_like(q, float("nan"))
        plan.run(q, k, v, lengths, table, out=out)
        assert rel_l2(out, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[torch.float16], strategy


def test_a_captured_step_replays_for_100_steps_while_lengths_grow(generator):
    batch, capacity, q_heads, kv_heads, d, block = 4, 1024, 32, 8, 128, 16
    q = uniform((batch, 1, q_heads, d), torch.float16, generator, "cuda")
    k, v, table = make_cache("paged", batch, capacity, kv_heads, d, torch.float16, generator, block, "cuda")
    lengths = torch.tensor([1, 120, 127, 500], dtype=torch.int32, device="cuda")
    plan = leanattn.DecodePlan(q, k, v, table)
    out = torch.empty_like(q)
    plan.run(q, k, v, lengths, table, out=out)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        plan.run(q, k, v, lengths, table, out=out, check_lengths=False)
    for step in range(100):
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert rel_l2(out, sdpa(q, k, v, lengths, table).double().cpu()) <= 2e-3, step
        lengths.add_(torch.tensor([1, 1, 1, 5], dtype=torch.int32, device="cuda"))  # LeanTile (128) and block (16) boundaries


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "auto"])
def test_a_staged_step_replays_while_lengths_grow_with_the_host_lengths_bits(strategy, generator):
    # The graph captures run(staged=True) alone; before each replay stage() puts that step's work, walked on the host,
    # in the workspace. Each replay gives the bits of a host-lengths step at the same lengths.
    batch, capacity, q_heads, kv_heads, d = 3, 1024, 28, 4, 128
    q = uniform((batch, 2, q_heads, d), torch.float16, generator, "cuda")
    k, v, table = make_cache("paged", batch, capacity, kv_heads, d, torch.float16, generator, 16, "cuda")
    lengths = torch.tensor([2, 120, 700], dtype=torch.int32, device="cuda")
    plan = leanattn.DecodePlan(q, k, v, table, strategy=strategy)
    out = torch.empty_like(q)
    plan.stage(q, k, v, lengths, table, host_seqlens=lengths.cpu())
    plan.run(q, k, v, lengths, table, out=out, check_lengths=False, staged=True)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        plan.run(q, k, v, lengths, table, out=out, check_lengths=False, staged=True)
    for step in range(40):
        plan.stage(q, k, v, lengths, table, host_seqlens=lengths.cpu())
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        want = plan.run(q, k, v, lengths, table, check_lengths=False, host_seqlens=lengths.cpu())
        assert torch.equal(out, want), step
        assert rel_l2(out, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[torch.float16], step
        lengths.add_(torch.tensor([1, 9, 7], dtype=torch.int32, device="cuda"))


def test_staging_inside_a_capture_is_refused(generator):
    q = uniform((2, 1, 8, 64), torch.float16, generator, "cuda")
    k, v, table = make_cache("padded", 2, 512, 2, 64, torch.float16, generator, 16, "cuda")
    lengths = torch.tensor([512, 40], dtype=torch.int32, device="cuda")
    plan = leanattn.DecodePlan(q, k, v, table)
    plan.stage(q, k, v, lengths, table, host_seqlens=[512, 40])  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(ValueError, match="capturing"):
        with torch.cuda.graph(graph):
            plan.stage(q, k, v, lengths, table, host_seqlens=[512, 40])


def test_a_planned_run_allocates_nothing(generator):
    q = uniform((8, 1, 32, 128), torch.bfloat16, generator, "cuda")
    k, v, _ = make_cache("token-major", 8, 4096, 8, 128, torch.bfloat16, generator, 16, "cuda")
    lengths = torch.full((8,), 4000, dtype=torch.int32, device="cuda")
    plan = leanattn.DecodePlan(q, k, v)
    out = torch.empty_like(q)
    plan.run(q, k, v, lengths, out=out, check_lengths=False)
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["allocation.all.allocated"]
    reserved = torch.cuda.memory_reserved()
    for _ in range(50):
        plan.run(q, k, v, lengths, out=out, check_lengths=False)
    torch.cuda.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before
    assert torch.cuda.memory_reserved() == reserved


@pytest.mark.skipif(not leanattn.custom_op_registered, reason="this PyTorch has no torch.library.custom_op")
def test_the_custom_op_compiles_without_a_graph_break(generator):
    q = uniform((2, 1, 8, 64), torch.float16, generator, "cuda")
    k, v, _ = make_cache("token-major", 2, 512, 2, 64, torch.float16, generator, 16, "cuda")
    lengths = torch.tensor([512, 100], dtype=torch.int32, device="cuda")

    def step(q, k, v, lengths):
        return leanattn.decode(q, k, v, lengths) * 2.0

    compiled = torch.compile(step, fullgraph=True)  # fullgraph: a graph break would raise
    assert rel_l2(compiled(q, k, v, lengths), 2.0 * reference(q, k, v, lengths.cpu())[0]) <= 2e-3


def test_a_shared_merge_gives_the_bits_of_a_host_merging_alone(generator):
    # 8 CTAs on each of 2 outputs, each CTA one segment: a host-lengths step merges each output with all 8 contributors
    # (each a share of the rows), a step of run() with its host alone; the same operations on the same values.
    q = uniform((1, 1, 32, 128), torch.float16, generator, "cuda")
    k, v, _ = make_cache("token-major", 1, 4096, 2, 128, torch.float16, generator, 16, "cuda")
    for live in (4096, 4000):
        lengths = torch.tensor([live], dtype=torch.int32, device="cuda")
        plan = leanattn.DecodePlan(q, k, v, strategy="stream-k", grid=16)
        ctas = plan.to_dict()["ctas"]
        assert len(ctas) == 16 and all(len(c["segments"]) == 1 for c in ctas)
        device_step = plan.run(q, k, v, lengths, check_lengths=False).clone()
        host_step = plan.run(q, k, v, lengths, check_lengths=False, host_seqlens=lengths.cpu())
        assert torch.equal(device_step, host_step)
        assert rel_l2(host_step, reference(q, k, v, lengths.cpu())[0]) <= TOLERANCE[torch.float16]


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split"])
def test_a_host_lengths_step_gives_the_device_lengths_bits(strategy, generator):
    # The host walks the plan at the lengths it is given and passes the segments in the launch: the same segments as
    # the step that reads cache_seqlens on the device, so the same bits; eager calls that check their lengths take it.
    q = uniform((3, 2, 28, 128), torch.bfloat16, generator, "cuda")
    k, v, table = make_cache("paged", 3, 2000, 4, 128, torch.bfloat16, generator, 16, "cuda")
    lengths = torch.tensor([2000, 17, 1290], dtype=torch.int32, device="cuda")
    plan = leanattn.DecodePlan(q, k, v, table, strategy=strategy)
    device_step = plan.run(q, k, v, lengths, table, check_lengths=False).clone()
    host_step = plan.run(q, k, v, lengths, table, check_lengths=False, host_seqlens=lengths.cpu())
    checked = plan.run(q, k, v, lengths, table)  # reads the lengths back: a host-lengths step
    assert torch.equal(device_step, host_step) and torch.equal(device_step, checked)
    assert rel_l2(host_step, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[torch.bfloat16]


@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split"])
def test_an_empty_slot_gets_out_0_and_lse_minus_inf_in_every_kind_of_step(strategy, generator):
    # A padded batch's slots of length 0: no CTA visits their outputs. A step of run() clears their rows in its
    # prologue, a host-lengths or staged step in the decode kernel (the table lists them); a checked call takes 0 too.
    q = uniform((4, 2, 28, 128), torch.float16, generator, "cuda")
    k, v, table = make_cache("paged", 4, 1500, 4, 128, torch.float16, generator, 16, "cuda")
    lengths = torch.tensor([0, 1290, 0, 17], dtype=torch.int32, device="cuda")
    ref, ref_lse = reference(q, k, v, lengths.cpu(), table)
    plan = leanattn.DecodePlan(q, k, v, table, strategy=strategy)
    out, lse = torch.empty_like(q), torch.empty((4, 28, 2), dtype=torch.float32, device="cuda")

    def poisoned(step):
        out.fill_(float("nan")), lse.fill_(float("nan"))
        step()
        torch.cuda.synchronize()
        return out.clone(), lse.clone()

    steps = {
        "device": lambda: plan.run(q, k, v, lengths, table, out=out, lse=lse, check_lengths=False),
        "host": lambda: plan.run(q, k, v, lengths, table, out=out, lse=lse, check_lengths=False, host_seqlens=lengths.cpu()),
        "checked": lambda: plan.run(q, k, v, lengths, table, out=out, lse=lse),
        "staged": lambda: (plan.stage(q, k, v, lengths, table, host_seqlens=lengths.cpu()),
                           plan.run(q, k, v, lengths, table, out=out, lse=lse, check_lengths=False, staged=True)),
    }
    results = {kind: poisoned(step) for kind, step in steps.items()}
    for kind, (o, l) in results.items():
        assert torch.equal(o[[0, 2]], torch.zeros_like(o[[0, 2]])), kind
        assert torch.all(l[[0, 2]] == -math.inf), kind
        assert rel_l2(o[[1, 3]], ref[[1, 3]]) <= TOLERANCE[torch.float16], kind
        assert (l[[1, 3]].double().cpu() - ref_lse[[1, 3]]).abs().max().item() <= 1e-3, kind
        assert torch.equal(o, results["device"][0]) and torch.equal(l, results["device"][1]), kind


def device_file_of_this_gpu():
    """The data/devices file whose cuda_names (the longest match) the GPU's CUDA name holds, else h100-sxm."""
    data = pathlib.Path(os.environ.get("LEANATTN_DATA") or pathlib.Path(__file__).resolve().parents[2] / "data")
    best, longest = "h100-sxm", 0
    for f in sorted((data / "devices").glob("*.json")):
        for piece in json.loads(f.read_text()).get("cuda_names", []):
            if piece in torch.cuda.get_device_name() and len(piece) > longest:
                best, longest = f.stem, len(piece)
    return best


def test_a_plan_for_the_gpu_reads_the_device_file_that_names_it_as_the_cli_and_auto_do(generator):
    # Llama-3.1-405B at 8 requests of 4k tokens, 4 new tokens each: 256 outputs of 16 rows, whose aligned stream-k plan
    # under h100-sxm's (and h200's) timing is one whole output on each of 256 CTAs (what `cuda bench` times); the
    # built-in defaults planned 132 CTAs there (108 us against 71).
    q = uniform((8, 4, 128, 128), torch.float16, generator, "cuda")
    k = torch.empty((8, 4096, 8, 128), dtype=torch.float16, device="cuda")
    default = leanattn.DecodePlan(q, k, k, strategy="stream-k").to_dict()
    named = leanattn.DecodePlan(q, k, k, strategy="stream-k", device=device_file_of_this_gpu()).to_dict()
    assert default["grid"] == named["grid"] == 256
    # auto says which device file it weighed the plans on: this GPU's (an H200's own, not h100-sxm's)
    assert leanattn.DecodePlan(q, k, k).to_dict()["auto"]["device"] == device_file_of_this_gpu()



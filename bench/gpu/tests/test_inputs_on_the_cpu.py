"""The suite's inputs and views (inputs.py), built on the CPU: every view holds the same tokens as the padded
cache, and leanattn's CPU executor, reading each view through the same C ABI the GPU runs use, matches the float64
reference. Skipped where torch or libleanattn.so is missing."""
import pathlib
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "python"))
leanattn = pytest.importorskip("leanattn")

import inputs  # noqa: E402
import shapes  # noqa: E402

SHAPE = shapes.Shape("tiny", 3, 8, 2, 64, (40, 1, 33), "fp16", "test")


@pytest.fixture(scope="module")
def tiny():
    return inputs.Inputs(SHAPE, seed=3, device="cpu")


def test_inputs_are_random_never_zero_and_cover_every_request(tiny):
    assert tiny.capacity == 48 and tiny.k.shape == (3, 2, 48, 64)
    assert (tiny.k != 0).float().mean() > 0.99 and tiny.k.float().std() == pytest.approx(1.0, abs=0.05)
    assert tiny.seqlens.tolist() == [40, 1, 33]


def test_the_reference_is_softmax_attention_per_query_head(tiny):
    ref = tiny.reference()
    b, h = 2, 5  # query head 5 reads KV head 5 // 4 = 1
    n = SHAPE.ctx[b]
    q = tiny.q[b, 0, h].double()
    k, v = tiny.k[b, 1, :n].double(), tiny.v[b, 1, :n].double()
    expected = torch.softmax(k @ q / 8.0, dim=0) @ v
    assert torch.allclose(ref[b, 0, h], expected, rtol=1e-12, atol=1e-12)


def test_the_paged_views_hold_the_padded_cache_token_for_token(tiny):
    k_nhd, _, table = tiny.paged16_nhd()
    k_hnd, _, indptr, indices, last = tiny.paged16_hnd()
    k_copy, _, c_indptr, c_indices, c_last = tiny.paged16_contiguous_hnd()
    assert indptr.tolist() == c_indptr.tolist() == [0, 3, 4, 7] and last.tolist() == c_last.tolist() == [8, 1, 1]
    assert k_copy.is_contiguous()
    for b, n in enumerate(SHAPE.ctx):
        for t in range(n):
            for h in range(SHAPE.kv_heads):
                token = tiny.k[b, h, t]
                assert torch.equal(k_nhd[table[b, t // 16], t % 16, h], token)
                assert torch.equal(k_hnd[indices[indptr[b] + t // 16], h, t % 16], token)
                assert torch.equal(k_copy[c_indices[c_indptr[b] + t // 16], h, t % 16], token)


def test_sdpa_sees_the_longest_request_and_a_mask_of_each_ones_tokens(tiny):
    k, _, mask = tiny.sdpa_kv()
    assert k.shape == (3, 2, 40, 64) and mask.shape == (3, 1, 1, 40)
    assert mask.sum(-1).flatten().tolist() == [40, 1, 33]


@pytest.mark.parametrize("layout,block", [("padded", 0), ("token-major", 0), ("paged", 1), ("paged", 16), ("paged", 256), ("paged16-view", 0)])
def test_leanattn_reads_every_layout_to_the_reference(tiny, layout, block):
    if layout == "paged16-view":
        k, v, table = tiny.paged16_nhd()
    else:
        k, v, table = tiny.layout(layout, block)
    ref = tiny.reference()
    for strategy in ("stream-k", "fixed-split", "no-split"):
        out = leanattn.decode(tiny.q, k, v, tiny.seqlens, block_table=table, strategy=strategy)
        assert inputs.rel_l2(out, ref) <= inputs.TOLERANCE["fp16"], (layout, block, strategy)


def test_a_poisoned_output_never_passes(tiny):
    ref = tiny.reference()
    out = ref.clone().to(torch.float16)
    out[1, 0, 3, 7] = float("nan")
    assert inputs.rel_l2(out, ref) == float("inf")

"""decode()'s plans: one per shape, thread and CUDA stream, so concurrent callers never share a workspace; at most
_MAX_PLANS kept."""
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

import leanattn
from conftest import has_gpu, make_cache, reference, rel_l2, uniform

plans = sys.modules["leanattn.decode"]  # leanattn.decode is the function


def test_threads_decoding_the_same_shape_each_get_their_own_results(generator):
    # Each call's workspace holds its partial results while ctypes lets go of the GIL: a workspace shared by two
    # threads mixed their outputs or crashed the process.
    batch, capacity, q_heads, kv_heads, d = 4, 2048, 32, 8, 64
    k, v, _ = make_cache("token-major", batch, capacity, kv_heads, d, torch.float32, generator)
    inputs = []
    for _ in range(4):
        q = uniform((batch, 1, q_heads, d), torch.float32, generator)
        lengths = torch.randint(1, capacity + 1, (batch,), generator=generator, dtype=torch.int32)
        inputs.append((q, lengths, reference(q, k, v, lengths)[0]))
    start = threading.Barrier(len(inputs))

    def errors(i):
        q, lengths, ref = inputs[i]
        start.wait()
        outs = [leanattn.decode(q, k, v, lengths, strategy="stream-k") for _ in range(40)]  # partials in the workspace
        return [(step, e) for step, e in enumerate(rel_l2(out, ref) for out in outs) if e > 1e-5]

    with ThreadPoolExecutor(max_workers=len(inputs)) as pool:
        found = list(pool.map(errors, range(len(inputs))))  # re-raises a thread's exception
    assert found == [[] for _ in inputs]


def test_the_least_recently_used_plans_are_dropped_beyond_the_bound(generator):
    plans._plans.clear()
    k, v, table = make_cache("paged", 1, 16 * (plans._MAX_PLANS + 5), 1, 32, torch.float32, generator, 16)
    q = uniform((1, 1, 2, 32), torch.float32, generator)
    for width in range(1, plans._MAX_PLANS + 6):  # each block_table width a cache of another capacity: another plan
        lengths = torch.tensor([16 * width], dtype=torch.int32)
        out = leanattn.decode(q, k, v, lengths, table[:, :width])
        assert rel_l2(out, reference(q, k, v, lengths, table[:, :width])[0]) <= 1e-5
        assert len(plans._plans) == min(width, plans._MAX_PLANS)
    assert f"beyond {plans._MAX_PLANS} plans" in leanattn.decode.__doc__
    capacities = [plan.shape.capacity for plan in plans._plans.values()]  # from the least recently used to the most
    assert capacities == [16 * width for width in range(6, plans._MAX_PLANS + 6)]


def test_a_thread_reuses_its_plan():
    plans._plans.clear()
    q = torch.ones(1, 1, 2, 32)
    k = torch.ones(1, 64, 1, 32)
    lengths = torch.tensor([64], dtype=torch.int32)
    leanattn.decode(q, k, k, lengths)
    leanattn.decode(q, k, k, lengths)
    assert len(plans._plans) == 1
    other = threading.Thread(target=leanattn.decode, args=(q, k, k, lengths))
    other.start()
    other.join()
    assert len(plans._plans) == 2


@pytest.mark.skipif(not (has_gpu and leanattn.has_cuda()), reason="needs a CUDA GPU and a libleanattn built with CUDA")
def test_each_cuda_stream_gets_its_own_plan(generator):
    plans._plans.clear()
    q = uniform((2, 1, 8, 64), torch.float16, generator, "cuda")
    k, v, _ = make_cache("token-major", 2, 512, 2, 64, torch.float16, generator, device="cuda")
    lengths = torch.tensor([512, 100], dtype=torch.int32, device="cuda")
    ref = reference(q, k, v, lengths)[0]
    streams = [torch.cuda.Stream() for _ in range(2)]
    outs = []
    for stream in streams:
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            outs.append(leanattn.decode(q, k, v, lengths))
    torch.cuda.synchronize()
    assert len(plans._plans) == 2
    for out in outs:
        assert rel_l2(out, ref) <= 1e-3


def test_a_plan_in_use_by_another_thread_says_to_give_each_thread_its_own(generator):
    # A CPU plan's workspace holds a mark while a step runs there; a second step finding it is refused, and a Python
    # caller, who never passed a workspace, is told what to do. The mark is set by hand: two threads would race for it.
    q = uniform((1, 1, 2, 32), torch.float32, generator)
    k = uniform((1, 64, 2, 32), torch.float32, generator)
    lengths = torch.tensor([64], dtype=torch.int32)
    plan = leanattn.DecodePlan(q, k, k)
    plan.workspace[:8] = torch.tensor(list(b"leanattr"[::-1]), dtype=torch.uint8)  # the mark, as a little-endian word
    with pytest.raises(ValueError, match="give each thread a DecodePlan of its own"):
        plan.run(q, k, k, lengths)
    plan.workspace[:8] = 0
    assert torch.isfinite(plan.run(q, k, k, lengths)).all()

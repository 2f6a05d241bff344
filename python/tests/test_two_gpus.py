"""Tensors on a GPU other than the current one (a tensor-parallel rank's cuda:1 while device 0 is current, and the
other way round): every kind of step runs on the tensors' GPU, on that GPU's current stream, with that GPU's SM count,
and gives the bits it gives where that GPU is current. Skipped with fewer than two GPUs."""
import pytest
import torch

import leanattn
from conftest import TOLERANCE, has_gpu, make_cache, reference, rel_l2, uniform

pytestmark = pytest.mark.skipif(not (has_gpu and leanattn.has_cuda() and torch.cuda.device_count() >= 2),
                                reason="needs two CUDA GPUs and a libleanattn built with CUDA")


def _inputs(device, generator):
    batch, capacity, q_heads, kv_heads, d = 3, 1500, 16, 4, 128
    q = uniform((batch, 1, q_heads, d), torch.float16, generator, device)
    k, v, table = make_cache("paged", batch, capacity, kv_heads, d, torch.float16, generator, 16, device)
    lengths = torch.tensor([1500, 0, 700], dtype=torch.int32, device=device)
    return q, k, v, table, lengths


@pytest.mark.parametrize("tensors_on,current", [(1, 0), (0, 1)])
@pytest.mark.parametrize("strategy", ["stream-k", "fixed-split", "no-split", "auto"])
def test_tensors_on_another_gpu_run_there_with_its_bits(tensors_on, current, strategy, generator):
    device = torch.device("cuda", tensors_on)
    q, k, v, table, lengths = _inputs(device, generator)
    with torch.cuda.device(tensors_on):  # the bits of each kind of step where the tensors' GPU is current
        plan = leanattn.DecodePlan(q, k, v, table, strategy=strategy)
        want = plan.run(q, k, v, lengths, table)
        want_host = plan.run(q, k, v, lengths, table, host_seqlens=lengths.cpu())
        torch.cuda.synchronize(device)
    assert plan.to_dict()["device"]["sms"] == torch.cuda.get_device_properties(device).multi_processor_count
    assert rel_l2(want, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[torch.float16]
    with torch.cuda.device(current):
        other = leanattn.DecodePlan(q, k, v, table, strategy=strategy)  # made while the other GPU is current
        for p in (plan, other):
            out = torch.full_like(q, float("nan"))
            p.run(q, k, v, lengths, table, out=out)
            torch.cuda.synchronize(device)
            assert torch.equal(out, want)
            assert torch.equal(p.run(q, k, v, lengths, table, host_seqlens=lengths.cpu()), want_host)
            p.stage(q, k, v, lengths, table, host_seqlens=lengths.cpu())
            assert torch.equal(p.run(q, k, v, lengths, table, staged=True), want_host)
        assert torch.equal(leanattn.decode(q, k, v, lengths, table, strategy=strategy), want)
        assert torch.cuda.current_device() == current  # the library made the tensors' GPU current for its calls only
    torch.cuda.synchronize(device)


def test_a_graph_captured_on_another_gpu_replays_there(generator):
    # A rank's decode step captured on its own GPU's stream while device 0 stays current for the rest of the process.
    device = torch.device("cuda", 1)
    q, k, v, table, lengths = _inputs(device, generator)
    plan = leanattn.DecodePlan(q, k, v, table)
    out = torch.empty_like(q)
    # torch.cuda.graph's default capture stream is made once per process, on the GPU current at its first use (device 0
    # where an earlier test captured there): a step of cuda:1 would run at once, outside the graph. Refused, naming it.
    with torch.cuda.device(0):
        stream0 = torch.cuda.Stream(torch.device("cuda", 0))
        with pytest.raises(ValueError, match="capture on a stream of cuda:1"):
            with torch.cuda.graph(torch.cuda.CUDAGraph(), stream=stream0):
                plan.run(q, k, v, lengths, table, out=out, check_lengths=False)
    with torch.cuda.device(1):
        plan.run(q, k, v, lengths, table, out=out)  # warm up outside the capture
        torch.cuda.synchronize(device)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=torch.cuda.Stream(device)):
            plan.run(q, k, v, lengths, table, out=out, check_lengths=False)
    assert torch.cuda.current_device() == 0
    for step in range(5):
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize(device)
        assert rel_l2(out, reference(q, k, v, lengths.cpu(), table)[0]) <= TOLERANCE[torch.float16], step
        lengths.add_(torch.tensor([0, 3, 17], dtype=torch.int32, device=device))


def test_tensors_on_two_gpus_are_refused_naming_them(generator):
    q, k, v, table, lengths = _inputs(torch.device("cuda", 0), generator)
    with pytest.raises(ValueError, match="cuda:1"):
        leanattn.decode(q, k.to("cuda:1"), v.to("cuda:1"), lengths, table)
    plan = leanattn.DecodePlan(q, k, v, table)
    q1, k1, v1, table1, lengths1 = (t.to("cuda:1") for t in (q, k, v, table, lengths))
    with pytest.raises(ValueError):  # a plan made for one GPU's tensors is not run on another's
        plan.run(q1, k1, v1, lengths1, table1)

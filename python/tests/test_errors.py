"""Bad arguments raise TypeError or ValueError naming the argument, and nothing is written."""
import pytest
import torch

import leanattn
from conftest import make_cache, uniform


@pytest.fixture
def case(generator):
    q = uniform((2, 1, 4, 32), torch.float16, generator)
    k, v, table = make_cache("paged", 2, 64, 2, 32, torch.float16, generator, 16)
    return q, k, v, table, torch.tensor([64, 9], dtype=torch.int32)


def raises(error, word, call):
    with pytest.raises(error) as info:
        call()
    assert word in str(info.value), str(info.value)


def test_wrong_types_and_dtypes(case):
    q, k, v, table, lengths = case
    raises(TypeError, "q", lambda: leanattn.decode([1, 2], k, v, lengths, table))
    raises(TypeError, "k_cache", lambda: leanattn.decode(q, k.float(), v, lengths, table))
    raises(TypeError, "cache_seqlens", lambda: leanattn.decode(q, k, v, lengths.long(), table))
    raises(TypeError, "block_table", lambda: leanattn.decode(q, k, v, lengths, table.long()))
    raises(TypeError, "q", lambda: leanattn.decode(q.to(torch.int16), k, v, lengths, table))


def test_wrong_shapes_and_strides(case):
    q, k, v, table, lengths = case
    raises(ValueError, "q", lambda: leanattn.decode(q[0], k, v, lengths, table))
    raises(ValueError, "v_cache", lambda: leanattn.decode(q, k, v[:, :8], lengths, table))
    raises(ValueError, "head_dim", lambda: leanattn.decode(q[..., :16], k, v, lengths, table))
    raises(ValueError, "heads", lambda: leanattn.decode(q[:, :, :3], k, v, lengths, table))
    # A padded (B, Hkv, N, d) cache passed as it is: the error says how it goes in.
    padded = torch.zeros(2, 2, 300, q.shape[3], dtype=q.dtype)
    raises(ValueError, "k.transpose(1, 2)", lambda: leanattn.decode(q, padded, padded, lengths))
    # The same where its KV heads divide q's heads: read with capacity 2, the lengths are what give it away.
    four = torch.zeros(2, 2, 4, q.shape[3], dtype=q.dtype)  # (B, Hkv 2, N 4, d) read as capacity 2, kv_heads 4
    raises(ValueError, "k.transpose(1, 2)", lambda: leanattn.decode(q, four, four, torch.tensor([3, 2], dtype=torch.int32)))
    message = str(pytest.raises(ValueError, leanattn.decode, q, padded[:, :, :2], padded[:, :, :2], torch.tensor([300, 9], dtype=torch.int32)).value)
    assert "transpose" not in message, message  # a length no dimension holds: no hint
    raises(ValueError, "cache_seqlens", lambda: leanattn.decode(q, k, v, lengths[:1], table))
    raises(ValueError, "block_table", lambda: leanattn.decode(q, k, v, lengths, table[:1]))
    transposed = k.transpose(2, 3).contiguous().transpose(2, 3)  # head dim not contiguous
    raises(ValueError, "contiguous", lambda: leanattn.decode(q, transposed, transposed, lengths, table))
    raises(ValueError, "softmax_scale", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=float("nan")))
    raises(ValueError, "softmax_scale", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=0.0))  # None is the default
    raises(ValueError, "softmax_scale", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=-1.0))
    # Beyond float32, which the kernels take (1e-50 would become 0, the default, without a word).
    raises(ValueError, "softmax_scale 1e-50 is 0.0 as the float32", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=1e-50))
    raises(ValueError, "softmax_scale 1e+39 is inf as the float32", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=1e39))
    raises(ValueError, "strategy", lambda: leanattn.decode(q, k, v, lengths, table, strategy="fastest"))


def test_lengths_and_block_ids_out_of_range_write_nothing(case):
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    out = torch.full_like(q, 7.0)
    for bad_lengths in ([65, 9], [-3, 9]):  # 0 is an empty slot, taken
        raises(ValueError, "cache_seqlens", lambda: plan.run(q, k, v, torch.tensor(bad_lengths, dtype=torch.int32), table, out=out))
    # With 2 new tokens a request of 1 token would not hold them: refused, by Python and by the library.
    q2, out2 = torch.cat([q, q], 1), torch.full_like(torch.cat([q, q], 1), 7.0)
    plan2 = leanattn.DecodePlan(q2, k, v, table)
    for check in (True, False):
        raises(ValueError, "request 1 has 1 tokens", lambda: plan2.run(q2, k, v, torch.tensor([64, 1], dtype=torch.int32), table, out=out2, check_lengths=check))
    assert torch.all(out2 == 7.0)
    bad_table = table.clone()
    bad_table[1, 0] = k.shape[0]  # one past the last block, reached by request 1's 9 tokens
    raises(ValueError, f"entry [1, 0] = {k.shape[0]} is not a block", lambda: plan.run(q, k, v, lengths, bad_table, out=out))
    assert torch.all(out == 7.0)
    # The C library checks too (it reads host memory): with the Python check off it still refuses.
    raises(ValueError, "block_table", lambda: plan.run(q, k, v, lengths, bad_table, out=out, check_lengths=False))
    raises(ValueError, "cache_seqlens", lambda: plan.run(q, k, v, torch.tensor([65, 9], dtype=torch.int32), table, out=out, check_lengths=False))
    assert torch.all(out == 7.0)


def test_an_empty_dimension_is_named(case):
    q, k, v, table, lengths = case
    raises(ValueError, "q: its heads dimension is 0", lambda: leanattn.decode(q[:, :, :0], k[:, :, :0], v[:, :, :0], lengths, table))
    raises(ValueError, "q: its head_dim dimension is 0", lambda: leanattn.decode(q[..., :0], k[..., :0], v[..., :0], lengths, table))
    raises(ValueError, "q: its batch dimension is 0", lambda: leanattn.decode(q[:0], k, v, lengths[:0], table[:0]))
    raises(ValueError, "q: its q_len dimension is 0", lambda: leanattn.decode(q[:, :0], k, v, lengths, table))
    raises(ValueError, "k_cache: its kv_heads dimension is 0", lambda: leanattn.decode(q, k[:, :, :0], v[:, :, :0], lengths, table))
    raises(ValueError, "k_cache: its num_blocks dimension is 0", lambda: leanattn.decode(q, k[:0], v[:0], lengths, table))
    raises(ValueError, "block_table: its max_blocks dimension is 0", lambda: leanattn.decode(q, k, v, lengths, table[:, :0]))
    dense = k[:4].reshape(2, 32, 2, 32)  # a strided cache
    raises(ValueError, "k_cache: its capacity dimension is 0", lambda: leanattn.decode(q, dense[:, :0], dense[:, :0], lengths * 0))


def test_a_plan_refuses_other_shapes_naming_what_differs(case):
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    raises(ValueError, "q has q_heads 2 but this plan was made for q_heads 4", lambda: plan.run(q[:, :, :2], k, v, lengths, table))
    raises(ValueError, "q has batch 1 but this plan was made for batch 2", lambda: plan.run(q[:1], k, v, lengths[:1], table[:1]))
    raises(ValueError, "the cache has capacity 32 but this plan was made for capacity 64",
           lambda: plan.run(q, k, v, lengths.clamp(max=32), table[:, :2]))
    raises(ValueError, "q has dtype torch.float32 but this plan was made for dtype torch.float16",
           lambda: plan.run(q.float(), k.float(), v.float(), lengths, table))
    raises(ValueError, "k_cache is an unpaged cache (no block_table) but this plan was made for a paged cache",
           lambda: plan.run(q, k[:4].reshape(2, 32, 2, 32), v[:4].reshape(2, 32, 2, 32), lengths.clamp(max=32)))


def test_devices_must_agree(case):
    q, k, v, table, lengths = case
    meta = torch.empty(k.shape, dtype=k.dtype, device="meta")
    raises(ValueError, "k_cache", lambda: leanattn.decode(q, meta, meta, lengths, table))


def test_tile_rows_must_be_an_int_and_not_negative(case):
    q, k, v, table, _ = case
    raises(TypeError, "tile_rows", lambda: leanattn.DecodePlan(q, k, v, table, tile_rows=2.5))
    raises(ValueError, "tile_rows", lambda: leanattn.DecodePlan(q, k, v, table, tile_rows=-1))


def test_tile_must_be_a_multiple_of_16(case):
    q, k, v, table, _ = case
    raises(ValueError, "tile", lambda: leanattn.DecodePlan(q, k, v, table, tile=40))


def test_a_staged_step_takes_its_lengths_from_stage(case):
    # On the CPU stage() does nothing and run(staged=True) runs as run() does; host_seqlens belong to stage().
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    raises(ValueError, "stage", lambda: plan.run(q, k, v, lengths, table, staged=True, host_seqlens=[64, 9]))
    raises(ValueError, "host_seqlens", lambda: plan.stage(q, k, v, lengths, table, host_seqlens=[64]))
    plan.stage(q, k, v, lengths, table, host_seqlens=[64, 9])
    assert torch.equal(plan.run(q, k, v, lengths, table, staged=True), plan.run(q, k, v, lengths, table))


def test_host_seqlens_must_be_the_lengths_in_host_memory(case):
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    raises(ValueError, "host_seqlens", lambda: plan.run(q, k, v, lengths, table, host_seqlens=[64]))
    raises(ValueError, "host_seqlens", lambda: plan.run(q, k, v, lengths, table, host_seqlens=[64, 8]))  # not cache_seqlens
    # Unchecked too: on the CPU the library compares them (a GPU step would walk host_seqlens, so they must be the same).
    raises(ValueError, "host_seqlens", lambda: plan.run(q, k, v, lengths, table, host_seqlens=[64, 8], check_lengths=False))
    # Taken as cache_seqlens is, int32, or ints within it: no value wraps or is cut on the way.
    raises(TypeError, "host_seqlens must be int32", lambda: plan.run(q, k, v, lengths, table, host_seqlens=torch.tensor([64, 9])))
    raises(ValueError, "host_seqlens[1] = 4294967305 is beyond int32", lambda: plan.run(q, k, v, lengths, table, host_seqlens=[64, 2**32 + 9]))
    raises(TypeError, "host_seqlens[1] must be an int", lambda: plan.run(q, k, v, lengths, table, host_seqlens=[64, 9.5]))
    raises(TypeError, "host_seqlens[0] must be an int", lambda: plan.run(q, k, v, lengths, table, host_seqlens=[True, 9]))
    assert torch.equal(plan.run(q, k, v, lengths, table, host_seqlens=list(lengths)), plan.run(q, k, v, lengths, table))  # 0-dim tensors
    out = plan.run(q, k, v, lengths, table, host_seqlens=torch.tensor([64, 9], dtype=torch.int32))
    assert torch.equal(out, plan.run(q, k, v, lengths, table))
    assert torch.equal(out, plan.run(q, k, v, lengths, table, host_seqlens=[64, 9], check_lengths=False))


def test_a_stream_k_option_for_another_strategy_is_refused_not_dropped(case):
    q, k, v, table, _ = case
    raises(ValueError, 'stream_k_rule paper (only applies to strategy "stream-k" or "auto")',
           lambda: leanattn.DecodePlan(q, k, v, table, strategy="fixed-split", stream_k_rule="paper"))
    raises(ValueError, 'only applies to strategy "stream-k" or "auto"', lambda: leanattn.schedule(strategy="no-split", stream_k_rule="paper"))
    leanattn.DecodePlan(q, k, v, table, strategy="stream-k", stream_k_rule="paper")  # where it applies, taken


def test_a_cpu_step_is_weighed_at_its_own_lengths_not_the_capacity(monkeypatch):
    # A cache of 128 requests x 128k tokens (stride 0: no memory) is five minutes of one core when full; a step of one
    # token per request is not, and runs. The same step over a work limit below it is refused, naming the lengths.
    batch, capacity = 128, 131072
    q = torch.randn(batch, 1, 64, 128)
    k = torch.randn(1, 1, 8, 128).expand(batch, capacity, 8, 128)
    plan = leanattn.DecodePlan(q, k, k, strategy="no-split")
    lengths = torch.ones(batch, dtype=torch.int32)
    assert torch.isfinite(plan.run(q, k, k, lengths)).all()
    monkeypatch.setenv("LEANATTN_MAX_WORK", "1000")
    raises(ValueError, "one core's work", lambda: plan.run(q, k, k, lengths))


def test_autograd_is_refused_not_dropped(case):
    # leanattn has no backward: an input that requires grad, or an out= autograd tracks, is refused while autograd
    # records, instead of an output that silently lost the graph (or a saved tensor overwritten under it).
    q, k, v, table, lengths = case
    q32, k32, v32 = q.float(), k.float(), v.float()
    trained = q32.clone().requires_grad_()
    raises(ValueError, "q requires grad", lambda: leanattn.decode(trained, k32, v32, lengths, table))
    raises(ValueError, "torch.no_grad()", lambda: leanattn.decode_impl(trained, k32, v32, lengths, table))
    plan = leanattn.DecodePlan(q32, k32, v32, table)
    raises(ValueError, "v_cache requires grad", lambda: plan.run(q32, k32, v32.clone().requires_grad_(), lengths, table))
    saved = q32.clone().requires_grad_().exp()  # what a backward would read: never written under it
    before = saved.detach().clone()
    raises(ValueError, "out requires grad", lambda: plan.run(q32, k32, v32, lengths, table, out=saved))
    assert torch.equal(saved.detach(), before)
    raises(TypeError, "out must be a torch.Tensor", lambda: plan.run(q32, k32, v32, lengths, table, out=[0.0]))
    with torch.no_grad():  # where autograd records nothing, the same tensors run
        assert torch.equal(leanattn.decode(trained, k32, v32, lengths, table), leanattn.decode(q32, k32, v32, lengths, table))
    with torch.inference_mode():
        assert torch.isfinite(leanattn.decode(trained, k32, v32, lengths, table)).all()


def test_a_tensor_the_run_writes_is_marked_modified_so_autograd_refuses_a_stale_backward(case):
    # out, lse and q run in place are written through their pointers: their version counters move as an in-place op's
    # would, so a backward pass that saved one of them before the run refuses to use what it no longer holds.
    q, k, v, table, lengths = case
    q32, k32, v32 = q.float(), k.float(), v.float()
    plan = leanattn.DecodePlan(q32, k32, v32, table)
    lse = torch.empty((2, 4, 1), dtype=torch.float32)
    for written in ("out", "lse", "q in place"):
        out = torch.randn_like(q32)
        target = {"out": out, "lse": lse, "q in place": out}[written]
        weight = torch.ones_like(target, requires_grad=True)
        loss = (weight * target).sum()  # saves target for the backward
        before = target._version
        if written == "q in place":
            plan.run(out, k32, v32, lengths, table, out=out)
        else:
            plan.run(q32, k32, v32, lengths, table, out=out, lse=lse)
        assert target._version > before, written
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()
    with torch.inference_mode():  # an inference tensor has no counter to move; the run goes on
        out = torch.empty_like(q32)
        plan.run(q32, k32, v32, lengths, table, out=out)
    assert torch.equal(out, plan.run(q32, k32, v32, lengths, table))


def test_a_plan_is_not_copied_or_pickled(case):
    # A copy would share the library's plan and outlive it (its checks passing on a stale shape): refused, as pickling is.
    import copy
    import pickle
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    raises(TypeError, "make another DecodePlan", lambda: copy.copy(plan))
    raises(TypeError, "make another DecodePlan", lambda: copy.deepcopy(plan))
    raises(TypeError, "cannot be pickled", lambda: pickle.dumps(plan))
    assert torch.equal(plan.run(q, k, v, lengths, table), leanattn.decode(q, k, v, lengths, table, strategy="auto"))


def test_strategy_and_scale_of_the_wrong_type_are_refused(case):
    q, k, v, table, lengths = case
    raises(TypeError, "strategy must be", lambda: leanattn.DecodePlan(q, k, v, table, strategy=None))
    raises(TypeError, "strategy must be", lambda: leanattn.decode_impl(q, k, v, lengths, table, strategy=None))
    raises(TypeError, "softmax_scale must be a number", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale="0.1"))
    raises(TypeError, "softmax_scale must be a number", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=True))
    raises(TypeError, "t.item()", lambda: leanattn.decode(q, k, v, lengths, table, softmax_scale=torch.tensor(0.1)))
    assert torch.equal(leanattn.decode(q, k, v, lengths, table, softmax_scale=1), leanattn.decode(q, k, v, lengths, table, softmax_scale=1.0))


def test_out_and_lse_messages_say_what_differs(case):
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    raises(ValueError, "out must have q's dtype: out has torch.float32, q torch.float16",
           lambda: plan.run(q, k, v, lengths, table, out=torch.empty(q.shape)))
    raises(ValueError, "got torch.float16 of shape (2, 4, 1)",
           lambda: plan.run(q, k, v, lengths, table, lse=torch.empty((2, 4, 1), dtype=torch.float16)))
    raises(TypeError, "cache_seqlens.to(torch.int32)", lambda: plan.run(q, k, v, lengths.long(), table))


def test_the_c_abi_compares_host_lengths_on_the_cpu_and_names_the_null_argument(case):
    # leanattn_run_host_lengths takes the step's lengths twice (tensors->seqlens and host_seqlens, equal, as leanattn.h
    # says); on a CPU plan both are host memory, so a difference is refused instead of run on one of them.
    import ctypes
    from leanattn import _library as L
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    out = torch.full_like(q, 7.0)
    tensors = plan._tensors(plan.shape, q, k, v, lengths, table, out, None, 0.0)
    host = torch.tensor([64, 8], dtype=torch.int32)
    status = L.lib.leanattn_run_host_lengths(plan._plan, ctypes.byref(tensors), host.data_ptr(), None, plan.workspace.data_ptr(),
                                             plan.workspace.numel(), None, 1)
    raises(ValueError, "host_seqlens (differs from cache_seqlens (tensors.seqlens) at [1]: 8 against 9", lambda: L.check(status))
    assert (out == 7.0).all()  # nothing written
    host[1] = 9
    L.check(L.lib.leanattn_run_host_lengths(plan._plan, ctypes.byref(tensors), host.data_ptr(), None, plan.workspace.data_ptr(),
                                            plan.workspace.numel(), None, 1))
    assert torch.equal(out, plan.run(q, k, v, lengths, table))
    # A ragged cache's step needs host_cu_seqlens on every plan (a GPU's walks them), so a CPU plan refuses their absence too.
    ragged = plan._tensors(plan.shape, q, k, v, lengths, table, out, None, 0.0)
    ragged.kv.layout = L.KV_RAGGED
    raises(ValueError, "host_cu_seqlens (is NULL", lambda: L.check(L.lib.leanattn_run_host_lengths(
        plan._plan, ctypes.byref(ragged), host.data_ptr(), None, plan.workspace.data_ptr(), plan.workspace.numel(), None, 1)))
    raises(ValueError, "host_cu_seqlens (is NULL", lambda: L.check(L.lib.leanattn_stage_step(
        plan._plan, ctypes.byref(ragged), host.data_ptr(), None, plan.workspace.data_ptr(), plan.workspace.numel(), None)))
    raises(ValueError, "bytes (is NULL", lambda: L.check(L.lib.leanattn_plan_workspace_bytes(plan._plan, None)))
    raises(ValueError, "json (is NULL", lambda: L.check(L.lib.leanattn_plan_json(plan._plan, None)))


def test_the_c_abi_stages_nothing_on_a_cpu_plan_but_checks_what_a_gpu_would(case):
    # Staging is a CPU plan's no-op, yet code tried on one must be refused where a GPU plan's would be.
    import ctypes
    from leanattn import _library as L
    q, k, v, table, lengths = case
    plan = leanattn.DecodePlan(q, k, v, table)
    host = torch.tensor([64, 9], dtype=torch.int32)
    tensors = plan._tensors(plan.shape, q, k, v, lengths, table, q, None, 0.0)

    def stage(t, workspace, size):
        return L.check(L.lib.leanattn_stage_step(plan._plan, ctypes.byref(t), host.data_ptr(), None, workspace, size, None))

    stage(tensors, plan.workspace.data_ptr(), plan.workspace.numel())  # fine: nothing to stage
    raises(ValueError, "workspace (is NULL", lambda: stage(tensors, None, 0))
    raises(ValueError, "this plan needs", lambda: stage(tensors, plan.workspace.data_ptr(), 1))
    raises(ValueError, "q (is missing", lambda: stage(L.Tensors(), plan.workspace.data_ptr(), plan.workspace.numel()))
    on_k = plan._tensors(plan.shape, q, k, v, lengths, table, q, None, 0.0)
    raises(ValueError, "workspace (overlaps k_cache", lambda: stage(on_k, k.data_ptr(), plan.workspace.numel()))


def test_the_c_abi_refuses_a_destroyed_plan_and_destroying_it_twice_does_nothing(case):
    import ctypes
    from leanattn import _library as L
    q, k, v, table, lengths = case
    # Made first: a plan made after the destroy may take the destroyed one's address (leanattn.h says so).
    plan = leanattn.DecodePlan(q, k, v, table)
    problem, _ctx = L.make_problem(batch=2, q_heads=4, kv_heads=2, head_dim=32, q_len=1, ctx=[64, 64])
    handle = L.PlanP()
    L.check(L.lib.leanattn_plan_create(ctypes.byref(problem), L.FP16, L.DEVICE_CPU, None, ctypes.byref(handle)))
    size = ctypes.c_size_t(0)
    L.check(L.lib.leanattn_plan_workspace_bytes(handle, ctypes.byref(size)))
    assert size.value > 0
    L.lib.leanattn_plan_destroy(handle)
    gone = "plan (is not a live plan: destroyed already"
    raises(ValueError, gone, lambda: L.check(L.lib.leanattn_plan_workspace_bytes(handle, ctypes.byref(size))))
    raises(ValueError, gone, lambda: L.check(L.lib.leanattn_plan_json(handle, ctypes.byref(ctypes.c_void_p()))))
    out = torch.full_like(q, 7.0)  # the live plan's tensors, run on the destroyed handle
    tensors = plan._tensors(plan.shape, q, k, v, lengths, table, out, None, 0.0)
    workspace = plan.workspace
    raises(ValueError, gone, lambda: L.check(L.lib.leanattn_run(handle, ctypes.byref(tensors), workspace.data_ptr(), workspace.numel(), None, 1)))
    host = lengths.clone()
    raises(ValueError, gone, lambda: L.check(L.lib.leanattn_run_host_lengths(handle, ctypes.byref(tensors), host.data_ptr(), None,
                                                                             workspace.data_ptr(), workspace.numel(), None, 1)))
    assert (out == 7.0).all()
    L.lib.leanattn_plan_destroy(handle)  # again: nothing happens
    L.lib.leanattn_plan_destroy(None)
    # A pointer that never was a plan is refused the same way, not read.
    bogus = ctypes.cast(ctypes.create_string_buffer(256), L.PlanP)
    raises(ValueError, "plan (is not a live plan", lambda: L.check(L.lib.leanattn_plan_workspace_bytes(bogus, ctypes.byref(size))))
    L.check(L.lib.leanattn_plan_workspace_bytes(plan._plan, ctypes.byref(size)))  # the live one still serves


def test_a_refused_lse_is_named_as_run_takes_it(case):
    # The library names the LSE softmax_lse (flash_attn_with_kvcache's name for what it returns); run() takes lse=.
    q, k, v, table, lengths = case
    q32, k32, v32 = q.float(), k.float(), v.float()
    plan = leanattn.DecodePlan(q32, k32, v32, table)
    out = torch.empty_like(q32)
    on_out = out.view(-1)[: 2 * 4 * 1].view(2, 4, 1)  # the LSE's 8 floats on out's first row
    raises(ValueError, "lse (overlaps out", lambda: plan.run(q32, k32, v32, lengths, table, out=out, lse=on_out))

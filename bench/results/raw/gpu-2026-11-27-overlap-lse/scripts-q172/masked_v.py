# What a GPU step gives the earlier new tokens' rows when a later new token's K/V hold NaN, inf or 3e38:
# rows that do not see that token should keep the bits they have with a normal value there.
import torch, leanattn
torch.manual_seed(0)
B, Q, H, Hkv, d, N = 2, 4, 8, 2, 128, 600
for dtype in (torch.float16, torch.bfloat16):
    q = torch.randn(B, Q, H, d, device="cuda", dtype=dtype)
    k = torch.randn(B, N, Hkv, d, device="cuda", dtype=dtype)
    v = torch.randn(B, N, Hkv, d, device="cuda", dtype=dtype)
    lens = torch.full((B,), N, device="cuda", dtype=torch.int32)
    for strategy in ("stream-k", "fixed-split", "no-split"):
        clean = leanattn.decode(q, k, v, lens, strategy=strategy)
        for planted in (float("nan"), float("inf"), 3e38 if dtype == torch.bfloat16 else 6e4):
            vb = v.clone(); vb[0, N - 1] = planted
            o = leanattn.decode(q, k, vb, lens, strategy=strategy)
            same_earlier = torch.equal(o[0, :Q - 1], clean[0, :Q - 1])
            finite_earlier = bool(torch.isfinite(o[0, :Q - 1]).all())
            print(f"{str(dtype):15} {strategy:12} V[last]={planted:<8g} earlier rows same bits: {same_earlier}, finite: {finite_earlier}; other request same: {torch.equal(o[1], clean[1])}")
# out = q (in place), through the Python API: the bits of a separate out
for strategy in ("stream-k", "fixed-split", "no-split"):
    q = torch.randn(B, Q, H, d, device="cuda", dtype=torch.float16)
    k = torch.randn(B, N, Hkv, d, device="cuda", dtype=torch.float16)
    lens = torch.full((B,), N, device="cuda", dtype=torch.int32)
    plan = leanattn.DecodePlan(q, k, k, strategy=strategy)
    separate = plan.run(q, k, k, lens)
    qq = q.clone()
    plan.run(qq, k, k, lens, out=qq)
    torch.cuda.synchronize()
    print(f"in place {strategy:12} same bits as a separate out: {torch.equal(qq, separate)}")

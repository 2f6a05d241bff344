# What a device-path step (lengths unchecked, as in a replayed graph) leaves in rows that see no token: lengths 0
# (a padded batch's empty slot) and below q_len. out and lse poisoned with NaN first.
import torch, leanattn
torch.manual_seed(0)
for q_len in (1, 4):
    for strategy in ("stream-k", "fixed-split", "no-split"):
        B, H, Hkv, d, N = 3, 8, 2, 128, 512
        q = torch.randn(B, q_len, H, d, device="cuda", dtype=torch.float16)
        k = torch.randn(B, N, Hkv, d, device="cuda", dtype=torch.float16)
        v = torch.randn(B, N, Hkv, d, device="cuda", dtype=torch.float16)
        plan = leanattn.DecodePlan(q, k, v, strategy=strategy)
        out = torch.full_like(q, float("nan"))
        lse = torch.full((B, H, q_len), float("nan"), device="cuda")
        lengths = torch.tensor([0, 300, 2], dtype=torch.int32, device="cuda")
        plan.run(q, k, v, lengths, out=out, lse=lse, check_lengths=False)
        torch.cuda.synchronize()
        for b in range(B):
            rows = []
            for t in range(q_len):
                o = out[b, t].float()
                kind = "NaN" if torch.isnan(o).all() else "zero" if (o == 0).all() else "mixed-NaN" if torch.isnan(o).any() else "finite"
                rows.append(f"{kind}/lse {lse[b, :, t][0].item():.3g}")
            print(f"q_len {q_len} {strategy:11s} length {int(lengths[b]):3d}: " + ", ".join(rows))

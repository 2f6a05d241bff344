"""How long the suite takes on an H100, before it runs: from each shape's K+V bytes, the peers, the repetitions.

The model (seconds), with the figures it rests on (H100 80GB HBM3, 2026-11-22, bench/results/gpu-decode-h100.md:
copy bandwidth 2,988 GB/s; fixed costs of 15-50 us per decode; SDPA's efficient backend up to 3.5x the floor,
no-split up to 5.5x on one long request):
  op        = FIXED_US + kv_bytes / COPY_BPS x peer factor             one decode of one peer
  rep       = op + FLUSH_US + SPIN_US                                   one timed repetition
  peer      = PEER_SETUP_S + 4 x op + reps x rep                        plan, capture, warm-up, check, timing
  shape     = SHAPE_SETUP_S + kv_bytes x SETUP_S_PER_BYTE + sum(peer)   inputs and the float64 reference
The suite uses the same model, with the copy bandwidth it measured, to skip work that would overrun its budget.
Standard library only.
"""
from shapes import api_validate_cases, hash_shapes, suite_shapes, validate_cases

COPY_BPS = 2.988e12
FIXED_US = 30.0
FLUSH_US = 200.0          # writing 2x the 50 MB L2 (at least 256 MiB), then reading as much, at ~2.5-3 TB/s
SPIN_US = 20.0
PEER_SETUP_S = 0.10            # plan, capture, warm-up, check (cuDNN builds an execution plan per new shape)
SHAPE_SETUP_S = 0.25
SETUP_S_PER_BYTE = 12 / 2.5e12  # random fill (1 write) + float64 reference (K, V read, upcast, products)
STARTUP_S = 20.0                # python, torch, CUDA context, leanattn and FlashInfer imports, machine queries
COPY_SECTION_S = 2.0            # the copy bandwidth, measured twice
VALIDATE_CASE_S = 1.5           # one `leanattn cuda validate` process: CUDA context, 3 strategies x 3 runs
VALIDATE_S_PER_BYTE = 1 / 0.4e9 # its float64 reference on the CPU and the copies back
VALIDATE_JOBS = 4
HASH_RUNS = 100

PEER_FACTORS = {
    "leanattn/stream-k": 1.1, "leanattn/fixed-split": 1.15, "leanattn/no-split": 2.5, "leanattn/stream-k-paged16": 1.15,
    "leanattn/stream-k-device": 1.1,
    "sdpa/flash": 2.0, "sdpa/cudnn": 1.3, "sdpa/efficient": 3.5, "flashinfer/decode": 1.3,
}
LEANATTN_PEERS = ("leanattn/stream-k", "leanattn/fixed-split", "leanattn/no-split")
SDPA_PEERS = ("sdpa/flash", "sdpa/cudnn", "sdpa/efficient")


def peers_for(shape, flashinfer=True):
    """The peers timed on a shape: every leanattn strategy (host-lengths steps), SDPA's three backends, FlashInfer;
    stream-k reading its lengths on the device where the shape is a target, ragged or in the fixed-cost sweep; the paged variant
    of stream-k beside FlashInfer's paged cache where the shape is a target, a bench case or ragged."""
    peers = list(LEANATTN_PEERS)
    if shape.section in ("targets", "ragged", "sweep"):  # the sweep's fits give its fixed cost beside the others'
        peers.append("leanattn/stream-k-device")
    if shape.section in ("targets", "bench", "ragged"):
        peers.append("leanattn/stream-k-paged16")
    peers += SDPA_PEERS
    if flashinfer:
        peers.append("flashinfer/decode")
    return peers


def op_us(shape, peer, copy_bps=COPY_BPS):
    return FIXED_US + shape.kv_bytes / copy_bps * 1e6 * PEER_FACTORS.get(peer, 2.0)


def reps_for(op_time_us, minimum=100):
    """At least `minimum`; more where a decode is short (the median settles, and it costs little)."""
    return max(minimum, 300 if op_time_us < 200 else 200 if op_time_us < 1000 else minimum)


def peer_seconds(shape, peer, copy_bps=COPY_BPS, min_reps=100):
    op = op_us(shape, peer, copy_bps)
    return PEER_SETUP_S + (4 * op + reps_for(op, min_reps) * (op + FLUSH_US + SPIN_US)) * 1e-6


def shape_seconds(shape, flashinfer=True, copy_bps=COPY_BPS, min_reps=100):
    return (SHAPE_SETUP_S + shape.kv_bytes * SETUP_S_PER_BYTE
            + sum(peer_seconds(shape, p, copy_bps, min_reps) for p in peers_for(shape, flashinfer)))


def validate_case_bytes(case):
    """K+V bytes of a `cuda validate` problem, read off its flags."""
    words = case.flags.split()
    get = lambda flag, default: words[words.index(flag) + 1] if flag in words else default
    heads = int(get("--heads", 32))
    kv_heads = int(get("--kv-heads", heads))
    ctx = [int(c) for c in get("--ctx", "1").split(",")]
    batch = int(get("--batch", 1))
    tokens = sum(ctx) if len(ctx) > 1 else ctx[0] * batch
    return 2 * tokens * kv_heads * int(get("--head-dim", 128)) * 2


def validate_seconds(cases, jobs=VALIDATE_JOBS):
    times = [VALIDATE_CASE_S + validate_case_bytes(c) * VALIDATE_S_PER_BYTE for c in cases]
    return max(sum(times) / jobs, max(times, default=0.0))


def hash_seconds(shapes):
    return sum(SHAPE_SETUP_S + shape.kv_bytes * SETUP_S_PER_BYTE
               + len(LEANATTN_PEERS) * HASH_RUNS * (op_us(shape, "leanattn/stream-k") + 60.0) * 1e-6 for shape in shapes)


def api_validate_seconds(cases):
    return len(cases) * (SHAPE_SETUP_S + 3 * PEER_SETUP_S)


def estimate(quick=False, flashinfer=True, flashinfer_wait_s=0.0):
    """Seconds per section and in total, in run order."""
    sections = {"startup": STARTUP_S, "copy": COPY_SECTION_S}
    sections["validate (cli)"] = max(validate_seconds(validate_cases(quick)), flashinfer_wait_s if flashinfer else 0.0)
    sections["validate (api)"] = api_validate_seconds(api_validate_cases(quick))
    sections["hash"] = hash_seconds(hash_shapes())
    for shape in suite_shapes(quick):
        sections[shape.section] = sections.get(shape.section, 0.0) + shape_seconds(shape, flashinfer)
    sections["total"] = sum(sections.values())
    return sections


def main():
    for quick in (True, False):
        print("quick" if quick else "full")
        for name, seconds in estimate(quick).items():
            print(f"  {name:16} {seconds:7.1f} s")


if __name__ == "__main__":
    main()

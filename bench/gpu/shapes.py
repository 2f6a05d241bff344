"""What the GPU suite runs: every problem shape, grouped by section, and the quick subset.

A shape is one decode step: `batch` requests of one new token each, `q_heads` query heads over `kv_heads` KV
heads of `head_dim`, request b holding ctx[b] context tokens, in fp16 or bf16. K+V bytes count only each
request's own tokens (what any decode must read): 2 (K and V) x sum(ctx) x kv_heads x head_dim x 2 bytes.

Sections, in the order the suite runs them (the most important first, so that a run cut short by its time
budget loses the least):
  targets   the named shapes of the project's targets, in fp16 and bf16
  bench     the cases bench/gpu/run.sh timed before (so results stay comparable)
  ragged    mean/max context 0.25 and 0.5, request 0 at the longest (as `leanattn sweep --vary ragged`)
  sweep     per kernel path (head dim 64/128 x GQA group 1/2/4/8 x fp16/bf16) a context sweep, for the fit
            time = fixed cost + bytes / bandwidth
  grid      B in {1, 4, 16, 64} x ctx in {1k, 4k, 16k, 64k} for Llama-3-8B (32/8, d 128) and the paper's
            32/32 d 64
Standard library only: the report and the tests import it on machines without torch.
"""
from dataclasses import dataclass, field, replace

ELEMENT_BYTES = 2  # fp16 and bf16
DTYPES = ("fp16", "bf16")
HEAD_DIMS = (64, 128)
GROUPS = (1, 2, 4, 8)

K = 1024


@dataclass(frozen=True)
class Shape:
    name: str
    batch: int
    q_heads: int
    kv_heads: int
    head_dim: int
    ctx: tuple
    dtype: str = "fp16"
    section: str = ""
    tags: tuple = field(default=())

    @property
    def group(self):
        return self.q_heads // self.kv_heads

    @property
    def kv_bytes(self):
        return 2 * sum(self.ctx) * self.kv_heads * self.head_dim * ELEMENT_BYTES

    @property
    def ragged(self):
        return len(set(self.ctx)) > 1

    @property
    def path(self):
        """The kernel path this shape runs: (head_dim, group, dtype)."""
        return (self.head_dim, self.group, self.dtype)

    def describe(self):
        ctx = str(self.ctx[0]) if not self.ragged else "ragged " + ",".join(map(str, self.ctx))
        return f"B={self.batch} H={self.q_heads}/{self.kv_heads} d={self.head_dim} ctx={ctx} {self.dtype}"

    def as_dict(self):
        return {"name": self.name, "batch": self.batch, "q_heads": self.q_heads, "kv_heads": self.kv_heads,
                "head_dim": self.head_dim, "ctx": list(self.ctx), "dtype": self.dtype, "section": self.section,
                "tags": list(self.tags)}


def shape_from_dict(d):
    return Shape(d["name"], d["batch"], d["q_heads"], d["kv_heads"], d["head_dim"], tuple(d["ctx"]), d["dtype"],
                 d.get("section", ""), tuple(d.get("tags", ())))


def uniform(name, batch, q_heads, kv_heads, head_dim, ctx, section, dtype="fp16", tags=()):
    return Shape(name, batch, q_heads, kv_heads, head_dim, (ctx,) * batch, dtype, section, tuple(tags))


def ragged_lengths(batch, longest, mean_over_max):
    """Request 0 holds `longest`; the others share (ratio x batch - 1) x longest equally (rounded), at least 1
    token each: `leanattn sweep --vary ragged`'s rule."""
    rest = mean_over_max * batch * longest - longest
    each = max(1, int(rest / (batch - 1) + 0.5))
    return (longest,) + (each,) * (batch - 1)


# The named shapes of the targets; the first three are the ones held to <= 0.8x cuDNN's time.
NAMED_TARGETS = (
    ("b16-h8kv1-d128-8k", 16, 8, 1, 128, 8 * K),
    ("b1-h32kv8-d128-32k", 1, 32, 8, 128, 32 * K),
    ("b4-h32kv32-d64-1k", 4, 32, 32, 64, 1 * K),
    ("b1-h32kv8-d128-2k", 1, 32, 8, 128, 2 * K),
    ("b32-h32kv8-d128-2k", 32, 32, 8, 128, 2 * K),
    ("b16-h64kv8-d128-4k", 16, 64, 8, 128, 4 * K),
)
VS_CUDNN_NAMES = tuple(t[0] for t in NAMED_TARGETS[:3])

# bench/gpu/run.sh's cases, same names.
BENCH_CASES = (
    ("h100-fig8-4k", 6, 48, 48, 64, (4 * K,) * 6),
    ("h100-fig8-16k", 6, 48, 48, 64, (16 * K,) * 6),
    ("h100-fig8-64k", 6, 48, 48, 64, (64 * K,) * 6),
    ("a100-fig7-256k", 4, 32, 32, 64, (256 * K,) * 4),
    ("llama2-7b-b1-64k", 1, 32, 32, 128, (64 * K,)),
    ("llama3-8b-b1-128k", 1, 32, 8, 128, (128 * K,)),
    ("llama3-8b-b8-8k", 8, 32, 8, 128, (8 * K,) * 8),
    ("llama3-70b-b16-4k", 16, 64, 8, 128, (4 * K,) * 16),
    ("ragged-b8", 8, 32, 8, 128, (65536, 1024, 2048, 512, 30000, 4096, 100, 8000)),
)

MODELS = (("llama3-8b", 32, 8, 128), ("paper-d64", 32, 32, 64))
GRID_BATCHES = (1, 4, 16, 64)
GRID_CTX = (1 * K, 4 * K, 16 * K, 64 * K)
RAGGED_RATIOS = (0.25, 0.5)
RAGGED_BATCH, RAGGED_LONGEST = 16, 16 * K

# The fixed-cost sweep: per kernel path, B=4 requests over 8 KV heads, contexts 1k..64k.
SWEEP_BATCH, SWEEP_KV_HEADS = 4, 8
SWEEP_CTX = (1 * K, 2 * K, 4 * K, 8 * K, 16 * K, 32 * K, 64 * K)
QUICK_SWEEP_CTX = (1 * K, 4 * K, 16 * K, 64 * K)
QUICK_SWEEP_PATHS = ((128, 4, "fp16"), (64, 1, "fp16"), (128, 1, "bf16"))


def targets(dtypes=DTYPES):
    out = []
    for dtype in dtypes:
        for i, (name, b, hq, hkv, d, n) in enumerate(NAMED_TARGETS):
            tags = ("vs-cudnn",) if i < 3 else ()
            out.append(uniform(name, b, hq, hkv, d, n, "targets", dtype, tags))
    return out


def bench_cases():
    return [Shape(name, b, hq, hkv, d, ctx, "fp16", "bench") for name, b, hq, hkv, d, ctx in BENCH_CASES]


def ragged_cases():
    out = []
    for model, hq, hkv, d in MODELS:
        for ratio in RAGGED_RATIOS:
            ctx = ragged_lengths(RAGGED_BATCH, RAGGED_LONGEST, ratio)
            name = f"ragged-{model}-b{RAGGED_BATCH}-{RAGGED_LONGEST // K}k-r{int(ratio * 100)}"
            out.append(Shape(name, RAGGED_BATCH, hq, hkv, d, ctx, "fp16", "ragged", (f"mean/max {ratio}",)))
    return out


def grid(batches=GRID_BATCHES, contexts=GRID_CTX):
    out = []
    for model, hq, hkv, d in MODELS:
        for b in batches:
            for n in contexts:
                out.append(uniform(f"grid-{model}-b{b}-{n // K}k", b, hq, hkv, d, n, "grid"))
    return out


def sweep(paths=None, contexts=SWEEP_CTX):
    paths = paths or [(d, g, dt) for dt in DTYPES for d in HEAD_DIMS for g in GROUPS]
    out = []
    for d, g, dtype in paths:
        for n in contexts:
            name = f"sweep-d{d}-g{g}-{dtype}-{n // K}k"
            out.append(uniform(name, SWEEP_BATCH, SWEEP_KV_HEADS * g, SWEEP_KV_HEADS, d, n, "sweep", dtype))
    return out


def suite_shapes(quick=False):
    """Every timed shape, in run order."""
    if quick:
        return (targets(("fp16",)) + [s for s in bench_cases() if s.name in ("h100-fig8-64k", "llama3-8b-b1-128k", "ragged-b8")]
                + ragged_cases()[:2] + sweep(QUICK_SWEEP_PATHS, QUICK_SWEEP_CTX)
                + grid((1, 16), (4 * K, 64 * K)))
    return targets() + bench_cases() + ragged_cases() + sweep() + grid()


def hash_shapes():
    """Where the 100-run bitwise check runs: a GQA target, an MHA case with partial merges, a ragged batch."""
    t = {s.name: s for s in targets(("fp16",))}
    return [t["b1-h32kv8-d128-32k"], t["b4-h32kv32-d64-1k"], replace(ragged_cases()[0], section="hash")]


# `leanattn cuda validate` list: (problem flags, layout, block size, dtype). Every (head dim, group) pair in every
# dtype on the padded cache; every other layout in both dtypes and head dims, groups taking turns.
LAYOUTS = (("token-major", 0), ("paged", 1), ("paged", 16), ("paged", 256), ("ragged", 0))
LARGE_VALIDATE = (  # bench/gpu/run.sh's list (padded)
    "--batch 1 --heads 2 --head-dim 64 --ctx 1280",
    "--batch 2 --heads 32 --kv-heads 8 --head-dim 128 --ctx 3000,700",
    "--batch 3 --heads 8 --head-dim 64 --ctx 1,5000,257",
    "--batch 1 --heads 64 --kv-heads 8 --head-dim 128 --ctx 33333",
    "--batch 4 --heads 32 --kv-heads 16 --head-dim 128 --ctx 16384",
    "--batch 5 --heads 40 --kv-heads 10 --head-dim 128 --ctx 100,2000,30000,7,4097",
    "--batch 6 --heads 48 --head-dim 64 --ctx 65536",
)


@dataclass(frozen=True)
class ValidateCase:
    flags: str
    dtype: str
    layout: str = "padded"
    block_size: int = 0

    def label(self):
        """The layout, with its block size when paged: padded, token-major, paged-16, ragged."""
        return self.layout + (f"-{self.block_size}" if self.block_size else "")

    def args(self):
        extra = f" --layout {self.layout}" if self.layout != "padded" else ""
        extra += f" --block-size {self.block_size}" if self.block_size else ""
        return f"{self.flags} --dtype {self.dtype}{extra}"


def small_problem(head_dim, group, kv_heads=2):
    return f"--batch 3 --heads {kv_heads * group} --kv-heads {kv_heads} --head-dim {head_dim} --ctx 1,3000,700"


def validate_cases(quick=False):
    dtypes = ("fp16",) if quick else DTYPES
    out = [ValidateCase(small_problem(d, g), dt) for dt in dtypes for d in HEAD_DIMS for g in GROUPS]
    turn = 0
    for dt in dtypes:
        for d in (128,) if quick else HEAD_DIMS:
            for layout, block in LAYOUTS:
                out.append(ValidateCase(small_problem(d, GROUPS[turn % len(GROUPS)]), dt, layout, block))
                turn += 1
    if not quick:
        out += [ValidateCase(flags, dt) for flags in LARGE_VALIDATE for dt in DTYPES]
    return out


# The Python API's own layout check (the path the timings use): small problems, every layout the package takes.
API_LAYOUTS = (("padded", 0), ("token-major", 0), ("paged", 1), ("paged", 16), ("paged", 256))


def api_validate_cases(quick=False):
    out = []
    dtypes = ("fp16",) if quick else DTYPES
    for dt in dtypes:
        for i, (layout, block) in enumerate(API_LAYOUTS):
            for d in HEAD_DIMS:
                g = GROUPS[(i + d // 64) % len(GROUPS)]
                out.append((Shape(f"api-{layout}{block or ''}-d{d}-g{g}-{dt}", 3, 2 * g, 2, d, (1500, 1, 700), dt, "api"), layout, block))
    return out

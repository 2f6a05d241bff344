"""The C ABI (leanattn.h) through ctypes: the library, its structs, and its status codes as Python exceptions.

ctypes keeps the package independent of the PyTorch version: it needs only a tensor's data_ptr(), strides and
dtype, which every PyTorch has, so the same package runs on a GPU machine's PyTorch and on Debian's CPU build.
"""
import ctypes
import os
import pathlib
import sys

_HERE = pathlib.Path(__file__).resolve().parent
# The package's folders: this one, or under `pip install -e .` the environment's (which holds the library built for it)
# and the sources' (which hold the modules).
_PACKAGE_DIRS = [pathlib.Path(p).resolve() for p in getattr(sys.modules.get(__package__), "__path__", [])] or [_HERE]
# Where libleanattn.so may be: $LEANATTN_LIBRARY; in a folder of the package (`pip install .`, or `pip install -e .`);
# an installed tree (P/lib/python/leanattn → P/lib); a build tree next to the sources (python/leanattn → build/capi).
_CANDIDATES = [d / "libleanattn.so" for d in _PACKAGE_DIRS] + [
    _HERE.parent.parent / "libleanattn.so",
    _HERE.parent.parent / "build" / "capi" / "libleanattn.so",
]


def _load():
    explicit = os.environ.get("LEANATTN_LIBRARY")
    paths = [pathlib.Path(explicit)] if explicit else _CANDIDATES
    for path in paths:
        if path.is_file():
            return ctypes.CDLL(str(path)), path.resolve()
    tried = ", ".join(str(p) for p in paths)
    raise ImportError(f"leanattn: cannot find libleanattn.so (tried {tried}); `pip install .` in the repository, "
                      "build it (./scripts/build.sh) or set LEANATTN_LIBRARY to its path")


lib, library_path = _load()  # library_path: the file loaded (leanattn.library_path)

OK, INVALID_ARGUMENT, RUNTIME, OUT_OF_MEMORY, INTERNAL = 0, 1, 2, 3, 4
FP32, FP16, BF16 = 0, 1, 2
DEVICE_CPU, DEVICE_CUDA = 0, 1
KV_STRIDED, KV_PAGED, KV_RAGGED = 0, 1, 2

i64 = ctypes.c_int64
i32p = ctypes.POINTER(ctypes.c_int32)


class Problem(ctypes.Structure):
    _fields_ = [("batch", i64), ("q_heads", i64), ("kv_heads", i64), ("head_dim", i64), ("q_len", i64), ("tile", i64),
                ("ctx", ctypes.POINTER(i64)), ("tile_rows", i64)]


class PlanOptions(ctypes.Structure):
    _fields_ = [("strategy", ctypes.c_char_p), ("splits", i64), ("grid", i64), ("device", ctypes.c_char_p), ("cuda_device", ctypes.c_int),
                ("stream_k_rule", ctypes.c_char_p), ("snap", i64), ("lengths", ctypes.c_char_p)]


class HeadTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("stride_batch", i64), ("stride_token", i64), ("stride_head", i64)]


class LseTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("stride_batch", i64), ("stride_head", i64), ("stride_token", i64)]


class KvCache(ctypes.Structure):
    _fields_ = [("k", ctypes.c_void_p), ("v", ctypes.c_void_p), ("layout", ctypes.c_int), ("stride_request", i64), ("stride_token", i64),
                ("stride_head", i64), ("capacity", i64), ("block_table", ctypes.c_void_p), ("block_table_stride", i64),
                ("block_size", i64), ("num_blocks", i64), ("cu_seqlens", ctypes.c_void_p)]


class Tensors(ctypes.Structure):
    _fields_ = [("q", HeadTensor), ("out", HeadTensor), ("lse", LseTensor), ("kv", KvCache), ("seqlens", ctypes.c_void_p),
                ("softmax_scale", ctypes.c_float)]


class Plan(ctypes.Structure):
    """Opaque."""


PlanP = ctypes.POINTER(Plan)
_status = ctypes.c_int

lib.leanattn_last_error.restype = ctypes.c_char_p
lib.leanattn_version.restype = ctypes.c_char_p
lib.leanattn_has_cuda.restype = ctypes.c_int
lib.leanattn_plan_create.argtypes = [ctypes.POINTER(Problem), ctypes.c_int, ctypes.c_int, ctypes.POINTER(PlanOptions), ctypes.POINTER(PlanP)]
lib.leanattn_plan_create.restype = _status
lib.leanattn_plan_destroy.argtypes = [PlanP]
lib.leanattn_plan_destroy.restype = None
lib.leanattn_plan_workspace_bytes.argtypes = [PlanP, ctypes.POINTER(ctypes.c_size_t)]
lib.leanattn_plan_workspace_bytes.restype = _status
lib.leanattn_plan_json.argtypes = [PlanP, ctypes.POINTER(ctypes.c_void_p)]
lib.leanattn_plan_json.restype = _status
lib.leanattn_run.argtypes = [PlanP, ctypes.POINTER(Tensors), ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int]
lib.leanattn_run.restype = _status
lib.leanattn_run_host_lengths.argtypes = [PlanP, ctypes.POINTER(Tensors), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                     ctypes.c_int]
lib.leanattn_run_host_lengths.restype = _status
lib.leanattn_stage_step.argtypes = [PlanP, ctypes.POINTER(Tensors), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
lib.leanattn_stage_step.restype = _status
lib.leanattn_run_staged.argtypes = [PlanP, ctypes.POINTER(Tensors), ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int]
lib.leanattn_run_staged.restype = _status
lib.leanattn_schedule_json.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(PlanOptions), ctypes.POINTER(ctypes.c_void_p)]
lib.leanattn_schedule_json.restype = _status
lib.leanattn_simulate_json.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(PlanOptions), ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
lib.leanattn_simulate_json.restype = _status
lib.leanattn_schedule_json_plan_for.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(PlanOptions), ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
lib.leanattn_schedule_json_plan_for.restype = _status
lib.leanattn_simulate_json_plan_for.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(PlanOptions), ctypes.c_int, ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_void_p)]
lib.leanattn_simulate_json_plan_for.restype = _status
lib.leanattn_free.argtypes = [ctypes.c_void_p]
lib.leanattn_free.restype = None
lib.leanattn_limits.argtypes = [ctypes.POINTER(i64), ctypes.POINTER(i64)]
lib.leanattn_limits.restype = _status


class InternalError(RuntimeError):
    """A bug in leanattn (its C++ code raised something it should not): please report the message."""


def check(status):
    """Raises the Python exception for a non-zero status, with the library's message."""
    if status == OK:
        return
    message = lib.leanattn_last_error().decode()
    if status == INVALID_ARGUMENT:
        raise ValueError(message)
    if status == OUT_OF_MEMORY:
        raise MemoryError(message)
    if status == INTERNAL:
        raise InternalError(message)
    raise RuntimeError(message)


def take_string(call, *args):
    """Calls a function that returns a malloc'ed string through its last argument, frees it, returns it."""
    out = ctypes.c_void_p()
    check(call(*args, ctypes.byref(out)))
    try:
        return ctypes.string_at(out.value).decode()
    finally:
        lib.leanattn_free(out)


def as_int64(name, value):
    """`value` as a C int64: TypeError unless it is an int (bool is not), ValueError outside 64 bits (ctypes
    would wrap it silently, turning 2**64 + 5 into 5)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"{name} {value} does not fit in a 64-bit integer")
    return value


def as_text(name, value):
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{name} must not contain a NUL character")
    return value.encode()


def limits():
    """(max_memory_bytes, max_work): what one call may allocate and do (leanattn.h, leanattn_limits)."""
    memory, work = i64(), i64()
    check(lib.leanattn_limits(ctypes.byref(memory), ctypes.byref(work)))
    return memory.value, work.value


# Bytes per request of the lists built here and in the library (a Python list entry, the ctypes array, the
# library's own per-request arrays), so a batch too large is refused before the lists exist.
_BYTES_PER_REQUEST = 8 + 8 + 48


def check_batch(batch):
    """ValueError naming `batch` unless it lies in 1..2^26 and its request lists fit the memory limit."""
    batch = as_int64("batch", batch)
    if not 1 <= batch <= (1 << 26):
        raise ValueError(f"batch {batch} must lie in 1..67108864")
    memory, _ = limits()
    if batch * _BYTES_PER_REQUEST > memory:
        raise ValueError(f"batch {batch} (its request lists need about {batch * _BYTES_PER_REQUEST} bytes, more than the limit of "
                         f"{memory}: set LEANATTN_MAX_MEMORY to change it)")
    return batch


def make_problem(batch, q_heads, kv_heads, head_dim, q_len, ctx, tile=0, tile_rows=0):
    """A Problem struct and the array it points to (keep both alive while the struct is used)."""
    fields = [as_int64(name, value) for name, value in
              (("batch", batch), ("q_heads", q_heads), ("kv_heads", kv_heads), ("head_dim", head_dim), ("q_len", q_len), ("tile", tile))]
    ctx = [as_int64("ctx", c) for c in ctx]
    if len(ctx) != batch:
        raise ValueError(f"ctx gives {len(ctx)} context lengths for a batch of {batch}; give one value, or one per request")
    ctx_array = (i64 * len(ctx))(*ctx)
    return Problem(*fields, ctx_array, as_int64("tile_rows", tile_rows)), ctx_array


def make_options(strategy=None, splits=0, grid=0, device=None, cuda_device=0, stream_k_rule=None, snap=0, lengths=None):
    return PlanOptions(as_text("strategy", strategy), as_int64("splits", splits), as_int64("grid", grid), as_text("device", device),
                       as_int64("cuda_device", cuda_device), as_text("stream_k_rule", stream_k_rule), as_int64("snap", snap),
                       as_text("lengths", lengths))


def version():
    return lib.leanattn_version().decode()


def has_cuda():
    return bool(lib.leanattn_has_cuda())

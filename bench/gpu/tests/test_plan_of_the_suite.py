"""What the suite runs and how long it should take: the shapes, the validation list, the time model."""
import subprocess
import sys
import pathlib

import estimate
import shapes
import suite

HERE = pathlib.Path(__file__).resolve().parents[1]


def test_the_named_targets_have_the_sizes_the_targets_give():
    t = {s.name: s for s in shapes.targets(("fp16",))}
    assert len(t) == 6
    s = t["b16-h8kv1-d128-8k"]
    assert (s.batch, s.q_heads, s.kv_heads, s.head_dim, s.group) == (16, 8, 1, 128, 8)
    assert s.kv_bytes == 2 * 16 * 8192 * 1 * 128 * 2  # K and V, fp16
    assert shapes.VS_CUDNN_NAMES == ("b16-h8kv1-d128-8k", "b1-h32kv8-d128-32k", "b4-h32kv32-d64-1k")


def test_every_kernel_path_is_swept_over_every_context():
    sweep = shapes.sweep()
    paths = {s.path for s in sweep}
    assert paths == {(d, g, dt) for d in (64, 128) for g in (1, 2, 4, 8) for dt in ("fp16", "bf16")}
    for path in paths:
        assert sorted(s.ctx[0] for s in sweep if s.path == path) == list(shapes.SWEEP_CTX)


def test_the_grid_covers_both_models_every_batch_and_context():
    grid = shapes.grid()
    assert len(grid) == 2 * 4 * 4
    big = next(s for s in grid if s.name == "grid-paper-d64-b64-64k")
    assert big.kv_bytes == 2 * 64 * 65536 * 32 * 64 * 2  # 34.4 GB: fits an 80 GB H100 with room for the reference


def test_ragged_batches_have_the_mean_over_max_they_are_named_for():
    for s in shapes.ragged_cases():
        ratio = float(s.tags[0].split()[-1])
        assert max(s.ctx) == shapes.RAGGED_LONGEST and s.ctx[0] == max(s.ctx)
        assert abs(sum(s.ctx) / len(s.ctx) / max(s.ctx) - ratio) < 1e-3


def test_quick_is_a_subset_of_full_and_names_are_unique_per_dtype():
    full = {(s.name, s.dtype) for s in shapes.suite_shapes()}
    quick = {(s.name, s.dtype) for s in shapes.suite_shapes(quick=True)}
    assert quick < full
    assert len(full) == len(shapes.suite_shapes())


def test_validation_covers_every_layout_in_both_dtypes_and_every_path_on_the_padded_cache():
    cases = shapes.validate_cases()
    for dtype in shapes.DTYPES:
        assert {c.label() for c in cases if c.dtype == dtype} >= {"padded", "token-major", "paged-1", "paged-16", "paged-256", "ragged"}
        padded = [c.flags for c in cases if c.dtype == dtype and c.layout == "padded"]
        for d in shapes.HEAD_DIMS:
            for g in shapes.GROUPS:
                assert shapes.small_problem(d, g) in padded
    assert "--layout paged --block-size 256" in next(c.args() for c in cases if c.label() == "paged-256")
    api = shapes.api_validate_cases()
    assert {(layout, block) for _, layout, block in api} == set(shapes.API_LAYOUTS)


def test_both_modes_fit_their_budgets_with_room_for_flashinfer_to_compile():
    quick, full = estimate.estimate(quick=True), estimate.estimate(quick=False)
    assert quick["total"] + suite.QUICK_FLASHINFER_WAIT_S <= suite.QUICK_BUDGET_S + 10  # the wait overlaps validation
    assert full["total"] + suite.FULL_FLASHINFER_WAIT_S - full["validate (cli)"] <= suite.FULL_BUDGET_S
    assert suite.FULL_BUDGET_S + 30 <= 600  # the device's per-command limit, with room to start and to write


def test_the_time_model_grows_with_bytes_and_slow_peers():
    small, large = shapes.targets(("fp16",))[2], shapes.bench_cases()[3]
    assert estimate.shape_seconds(large) > estimate.shape_seconds(small)
    assert estimate.op_us(large, "sdpa/efficient") > estimate.op_us(large, "leanattn/stream-k")
    assert estimate.reps_for(50.0) >= 100 and estimate.reps_for(50_000.0) == 100
    assert estimate.validate_case_bytes(shapes.ValidateCase("--batch 6 --heads 48 --head-dim 64 --ctx 65536", "fp16")) == 2 * 6 * 65536 * 48 * 64 * 2


def test_the_estimate_prints_without_a_gpu():
    out = subprocess.run([sys.executable, str(HERE / "suite.py"), "--estimate"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("total") == 2 and "quick" in out.stdout and "full" in out.stdout


def test_the_suite_refuses_fewer_than_100_repetitions():
    out = subprocess.run([sys.executable, str(HERE / "suite.py"), "--out", "/tmp/x", "--min-reps", "50"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "100 repetitions" in out.stderr

#!/usr/bin/env bash
# The first thing to run on a GPU after the kernels or the API change: the GPU tests of the C++ API (test_cuda),
# the Python package's GPU tests, `leanattn cuda validate` over every cache layout, over every kernel path (head dim
# 64/96/128/256 x (group, q_len) pairs from one row to 1024 rows in row blocks x fp16/bf16) and over every model of
# data/models (q_len 1 and 4, fp16 and bf16, a ragged batch), the host time of cuda::run and of --strategy auto, and compute-sanitizer on one
# paged and one GQA problem (bench/gpu/sanitize.sh covers every path). Logs into OUT; a summary at the end.
# usage (on the GPU machine, from the repository root): bench/gpu/check.sh DEVBUILD OUT [validate flags...]
#   DEVBUILD holds leanattn, libleanattn.so and bench_auto_speed (bench/gpu/prepare.sh), and test_cuda and
#   bench_cuda_run_overhead (build/tests, build/bench: 18-19 MB each, so copied xz-compressed and unpacked there)
#   validate flags: added to every `cuda validate` (e.g. --lengths host: every path as a host-lengths step)
set -uo pipefail
dev=$1; out=$2; shift 2
extra=("$@")
mkdir -p "$out"
export LEANATTN_LIBRARY=$PWD/$dev/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
summary=()
step() {  # step NAME LOG COMMAND...: runs it with a time limit, records pass/fail
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  timeout 300 "$@" >"$out/$log" 2>&1
  local rc=$?
  summary+=("$(printf '%-28s rc %-3s %4ss  %s' "$name" "$rc" "$((SECONDS - t0))" "$(tail -1 "$out/$log" | cut -c1-90)")")
}
validate() {  # validate FLAGS...: one `cuda validate` run, headed "== FLAGS" in the log, marked FAILED when it fails
  echo "== $*"
  "$dev/leanattn" cuda validate "$@" "${extra[@]}" || echo "   ^ FAILED"
}
failures() {  # failures NAME LOG: the summary line of a log of validate runs
  summary+=("$(printf '%-28s %s failed of %s' "$1" "$(grep -c 'FAILED' "$out/$2")" "$(grep -c '^==' "$out/$2")")")
}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >"$out/machine.txt" 2>&1
step "test_cuda" test_cuda.log "$dev/test_cuda"
step "pytest (GPU)" pytest.log python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_decode_cpu.py python/tests/test_errors.py
{
  for layout in "padded" "token-major" "paged --block-size 1" "paged --block-size 16" "paged --block-size 256" "ragged"; do
    for shape in "--batch 3 --heads 8 --head-dim 64 --ctx 1,5000,257" "--batch 2 --heads 16 --kv-heads 8 --head-dim 128 --ctx 3000,700" \
                 "--batch 2 --heads 32 --kv-heads 8 --head-dim 128 --ctx 4100,129" "--batch 1 --heads 64 --kv-heads 8 --head-dim 64 --ctx 20000"; do
      for dt in fp16 bf16; do
        validate $shape --layout $layout --dtype $dt
      done
    done
  done
} >"$out/validate.log" 2>&1
failures "cuda validate" validate.log
# Every kernel path: rows = group x q_len from 1 to 1024 (MQA 71 and 128 at q_len 4 and 8: row blocks), each head dim,
# both dtypes, the four cache layouts in turn; a request as short as q_len among them.
{
  layouts=("--layout padded" "--layout paged --block-size 16" "--layout ragged" "--layout token-major")
  n=0
  for d in 64 96 128 256; do
    for gq in 1:1 1:2 3:1 7:1 4:4 5:4 16:2 7:8 71:1 16:8 71:4 128:8; do
      g=${gq%%:*}; q=${gq#*:}
      for dt in fp16 bf16; do
        validate ${layouts[$((n % 4))]} --dtype $dt --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $q --head-dim $d --ctx $q,700,2600
        n=$((n + 1))
      done
    done
  done
} >"$out/paths.log" 2>&1
failures "kernel paths" paths.log
{
  for f in data/models/*.json; do
    for q in 1 4; do
      for dt in fp16 bf16; do
        validate --model "$(basename "$f" .json)" --q-len $q --dtype $dt --layout ragged --batch 4 --ctx 3000,77,1500,9000
      done
    done
  done
} >"$out/models.log" 2>&1
failures "every model" models.log
step "run() host time" overhead.log "$dev/bench_cuda_run_overhead"
# --strategy auto's host time on this machine's CPU, pinned to one core (the figure docs/calibration.md compares).
step "auto host time" auto-speed.log taskset -c 1 "$dev/bench_auto_speed" data/kernels/leanattn-h100.json h100-sxm \
  bench/results/raw/gpu-2026-11-27-v34-calibration/cal-device/heldout-1.jsonl
step "memcheck paged" memcheck.log compute-sanitizer --tool memcheck "$dev/leanattn" cuda validate --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --ctx 300,70 --layout paged --block-size 16
step "racecheck GQA" racecheck.log compute-sanitizer --tool racecheck "$dev/leanattn" cuda validate --batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 3000 --strategy stream-k
step "synccheck" synccheck.log compute-sanitizer --tool synccheck "$dev/leanattn" cuda validate --batch 2 --heads 4 --head-dim 64 --ctx 3000,9 --layout ragged
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"

#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck on `leanattn cuda validate` (every strategy, 3
# runs each, outputs checked against float64) over one small, one ragged and one GQA problem for each kernel path of
# head dim 64 and 128 x rows on CUDA cores (MHA: group 1) or tensor cores (groups 2-8) x fp16 and bf16, then one
# problem per path added since: head dim 96 (one row, and GQA), head dim 256 (one row; q_len 4 on a paged cache;
# 64 rows, a team of 8 warps), several new tokens (q_len 4, ragged), MQA (71 rows in one tile: the 128-row kernel),
# 56 rows in one tile (the 64-row kernel at head dim 128) and row blocks (Falcon-7B at q_len 4: 284 rows in tiles of
# 128; 1024 rows in 8). The teams of several warps (tiles of 32-128 rows) run only where --tile-rows asks for them.
#
# usage (on the GPU machine, from the repository root): bench/gpu/sanitize.sh OUT_DIR [--quick] [--bin BIN] [--deadline-s S] [--flags F] [--only RE]
#   --quick: fp16 only (half the runs). BIN: default .devbuild/leanattn, else build/apps/leanattn.
#   --deadline-s: start no run after S seconds (default 420); runs left are counted as not run.
#   --flags: added to every validation, e.g. "--lengths host" (every problem as a host-lengths step).
#   --only: only the problems whose name matches this extended regular expression, e.g. "rows" (the team kernels).
# Writes OUT_DIR/sanitize-<tool>.log (every run's output, one tool per file) and OUT_DIR/sanitize-summary.txt, one
# line per tool: "<tool>  clean  N/N runs", "<tool>  INCOMPLETE  k/N clean, m not run (deadline)" or
# "<tool>  FAILED  k/N clean (failing: ...)". A run is clean when the
# tool's summary reports 0 errors (racecheck: 0 hazards) and the validation passed. The tools run side by side (one
# worker each), the runs of one tool one after another. Exit status 1 when any run is not clean.
set -uo pipefail
out=${1:?usage: sanitize.sh OUT_DIR [--quick] [--bin BIN] [--deadline-s S] [--flags F] [--only RE]}
shift
quick="" bin="" per_run_timeout=120 deadline=420 extra="" only=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --bin) bin=$2; shift ;;
    --deadline-s) deadline=$2; shift ;;
    --flags) extra=$2; shift ;;
    --only) only=$2; shift ;;
    *) echo "sanitize.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "$bin" ] || { [ -x "$root/.devbuild/leanattn" ] && bin=$root/.devbuild/leanattn || bin=$root/build/apps/leanattn; }
[ -x "$bin" ] || { echo "sanitize.sh: no leanattn binary at $bin" >&2; exit 2; }
command -v compute-sanitizer >/dev/null || { echo "sanitize.sh: compute-sanitizer is not on PATH" >&2; exit 2; }
export LEANATTN_DATA=${LEANATTN_DATA:-$root/data}
mkdir -p "$out"

# --layout ragged where this binary's `cuda validate` takes it; otherwise ragged lengths in the padded cache.
ragged_layout=""
"$bin" cuda validate --help 2>&1 | grep -q -- "--layout" && ragged_layout="--layout ragged"

dtypes="fp16 bf16"; [ -n "$quick" ] && dtypes="fp16"
problems=()
for dt in $dtypes; do
  for d in 64 128; do
    for rows in cuda-cores tensor-cores; do
      if [ $rows = cuda-cores ]; then g=1; gqa=1; else g=2; gqa=8; fi
      path="d$d-$rows-$dt"
      problems+=("$path small|--batch 1 --heads $((2 * g)) --kv-heads 2 --head-dim $d --ctx 1280 --dtype $dt")
      problems+=("$path ragged|--batch 3 --heads $((2 * g)) --kv-heads 2 --head-dim $d --ctx 1,3000,257 --dtype $dt $ragged_layout")
      problems+=("$path gqa|--batch 2 --heads $((2 * gqa)) --kv-heads 2 --head-dim $d --ctx 2000,700 --dtype $dt")
    done
  done
done

for dt in $dtypes; do
  problems+=("d96-one-row-$dt|--batch 2 --heads 4 --head-dim 96 --ctx 700,90 --dtype $dt")
  problems+=("d96-gqa-$dt|--batch 2 --heads 16 --kv-heads 2 --head-dim 96 --ctx 1500,33 --dtype $dt $ragged_layout")
  problems+=("d256-one-row-$dt|--batch 2 --heads 4 --head-dim 256 --ctx 900,40 --dtype $dt")
  problems+=("d256-q4-paged-$dt|--batch 2 --heads 4 --kv-heads 2 --q-len 4 --head-dim 256 --ctx 600,40 --layout paged --block-size 16 --dtype $dt")
  problems+=("d256-64-rows-$dt|--batch 1 --heads 16 --kv-heads 1 --q-len 4 --head-dim 256 --ctx 1200 --tile-rows 64 --dtype $dt")
  problems+=("q4-ragged-$dt|--batch 2 --heads 10 --kv-heads 2 --q-len 4 --head-dim 128 --ctx 2000,33 --dtype $dt $ragged_layout")
  problems+=("mqa-71-rows-$dt|--batch 1 --heads 71 --kv-heads 1 --head-dim 64 --ctx 3000 --tile-rows 128 --dtype $dt")
  problems+=("gqa-56-rows-$dt|--batch 2 --heads 28 --kv-heads 4 --q-len 8 --head-dim 128 --ctx 1100,77 --tile-rows 64 --dtype $dt $ragged_layout")
  problems+=("row-blocks-284-$dt|--batch 2 --heads 71 --kv-heads 1 --q-len 4 --head-dim 64 --ctx 1500,300 --tile-rows 128 --dtype $dt")
  problems+=("row-blocks-1024-$dt|--batch 1 --heads 128 --kv-heads 1 --q-len 8 --head-dim 128 --ctx 700 --tile-rows 128 --dtype $dt")
done
if [ -n "$only" ]; then
  kept=()
  for entry in "${problems[@]}"; do [[ ${entry%%|*} =~ $only ]] && kept+=("$entry"); done
  problems=("${kept[@]}")
fi
start=$(date +%s)

clean_line() {  # the tool's own summary line for a clean run
  case $1 in
    racecheck) echo "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" ;;
    *) echo "ERROR SUMMARY: 0 errors" ;;
  esac
}

run_tool() {  # every problem under one tool; one line per run in $out/.sanitize-<tool>.runs
  local tool=$1 log="$out/sanitize-$1.log" runs="$out/.sanitize-$1.runs" entry name flags rc text
  : >"$log"; : >"$runs"
  for entry in "${problems[@]}"; do
    name=${entry%%|*}; flags=${entry#*|}
    if [ $(($(date +%s) - start)) -ge "$deadline" ]; then
      echo "late $name" >>"$runs"
      continue
    fi
    echo "== $tool: $name: leanattn cuda validate $flags" >>"$log"
    # shellcheck disable=SC2086
    text=$(timeout "$per_run_timeout" compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" cuda validate $flags $extra --seed 7 2>&1)
    rc=$?
    printf '%s\n(rc %s)\n' "$text" "$rc" >>"$log"
    if [ $rc -eq 0 ] && grep -qF "$(clean_line "$tool")" <<<"$text"; then
      echo "clean $name" >>"$runs"
    else
      echo "dirty $name (rc $rc)" >>"$runs"
    fi
  done
}

pids=()
for tool in memcheck racecheck synccheck initcheck; do
  run_tool $tool &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

status=0
: >"$out/sanitize-summary.txt"
for tool in memcheck racecheck synccheck initcheck; do
  runs="$out/.sanitize-$tool.runs"
  total=$(wc -l <"$runs"); clean=$(grep -c '^clean' "$runs"); late=$(grep -c '^late' "$runs")
  if [ "$clean" -eq "$total" ] && [ "$total" -gt 0 ]; then
    line="$tool  clean  $clean/$total runs"
  elif [ $((clean + late)) -eq "$total" ]; then
    status=1
    line="$tool  INCOMPLETE  $clean/$total clean, $late not run (deadline ${deadline} s)"
  else
    status=1
    line="$tool  FAILED  $clean/$total clean (failing: $(grep '^dirty' "$runs" | cut -d' ' -f2- | paste -sd';' -))"
  fi
  echo "$line" | tee -a "$out/sanitize-summary.txt"
  rm -f "$runs"
done
echo "sanitize.sh: ${#problems[@]} problems x 4 tools in $(($(date +%s) - start)) s on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
exit $status

#!/usr/bin/env bash
# Everything the GPU machine does in one call: validate every strategy on many shapes against float64,
# run compute-sanitizer on a small case, then time leanattn's kernels and PyTorch SDPA side by side.
# usage (on the GPU machine, from the repository root): bench/gpu/run.sh BIN OUT_DIR [quick]
#   BIN: the leanattn binary built with CUDA (e.g. .devbuild/leanattn); results land in OUT_DIR:
#   validate.log, sanitizer.log, bench.jsonl (leanattn), peers.jsonl (torch), machine.txt
set -uo pipefail
bin=$1; out=$2; quick=${3:-}
export LEANATTN_DATA=${LEANATTN_DATA:-data}
mkdir -p "$out"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; python3 -c 'import torch; print("torch", torch.__version__)'; } >"$out/machine.txt" 2>&1

validate_cases=(
  "--batch 1 --heads 2 --head-dim 64 --ctx 1280"
  "--batch 2 --heads 32 --kv-heads 8 --head-dim 128 --ctx 3000,700"
  "--batch 3 --heads 8 --head-dim 64 --ctx 1,5000,257"
  "--batch 1 --heads 64 --kv-heads 8 --head-dim 128 --ctx 33333"
  "--batch 4 --heads 32 --kv-heads 16 --head-dim 128 --ctx 16384"
  "--batch 5 --heads 40 --kv-heads 10 --head-dim 128 --ctx 100,2000,30000,7,4097"
  "--batch 6 --heads 48 --head-dim 64 --ctx 65536"
  "--batch 4 --heads 16 --kv-heads 8 --head-dim 128 --ctx 16384,3,999,4097 --layout token-major"
  "--batch 3 --heads 32 --kv-heads 8 --head-dim 128 --ctx 4000,100,70000 --layout paged --block-size 16"
  "--batch 2 --heads 8 --head-dim 64 --ctx 1,5000 --layout paged --block-size 1"
  "--batch 2 --heads 64 --kv-heads 8 --head-dim 64 --ctx 3000,700 --layout paged --block-size 256"
  "--batch 5 --heads 40 --kv-heads 10 --head-dim 128 --ctx 100,2000,30000,7,4097 --layout ragged"
)
status=0
for c in "${validate_cases[@]}"; do
  for dt in fp16 bf16; do
    echo "== validate $c --dtype $dt" >>"$out/validate.log"
    $bin cuda validate $c --dtype $dt --seed $RANDOM >>"$out/validate.log" 2>&1 || { status=1; echo "   ^ FAILED (rc $?)" >>"$out/validate.log"; }
  done
done
echo "validate status: $status" >>"$out/validate.log"
tail -3 "$out/validate.log"

if [ -z "$quick" ]; then
  compute-sanitizer --tool memcheck $bin cuda validate --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --ctx 3000,700 >"$out/sanitizer.log" 2>&1
  compute-sanitizer --tool racecheck $bin cuda validate --batch 1 --heads 4 --head-dim 64 --ctx 5000 --strategy stream-k >>"$out/sanitizer.log" 2>&1
  tail -2 "$out/sanitizer.log"
fi

# name | leanattn flags | peer flags (uniform ctx only: SDPA takes no ragged batch without padding)
bench_cases=(
  "h100-fig8-4k|--batch 6 --heads 48 --head-dim 64 --ctx 4096|--batch 6 --heads 48 --kv-heads 48 --head-dim 64 --ctx 4096"
  "h100-fig8-16k|--batch 6 --heads 48 --head-dim 64 --ctx 16384|--batch 6 --heads 48 --kv-heads 48 --head-dim 64 --ctx 16384"
  "h100-fig8-64k|--batch 6 --heads 48 --head-dim 64 --ctx 65536|--batch 6 --heads 48 --kv-heads 48 --head-dim 64 --ctx 65536"
  "a100-fig7-256k|--batch 4 --heads 32 --head-dim 64 --ctx 262144|--batch 4 --heads 32 --kv-heads 32 --head-dim 64 --ctx 262144"
  "llama2-7b-b1-64k|--batch 1 --heads 32 --head-dim 128 --ctx 65536|--batch 1 --heads 32 --kv-heads 32 --head-dim 128 --ctx 65536"
  "llama3-8b-b1-128k|--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 131072|--batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 131072"
  "llama3-8b-b8-8k|--batch 8 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8192|--batch 8 --heads 32 --kv-heads 8 --head-dim 128 --ctx 8192"
  "llama3-70b-b16-4k|--batch 16 --heads 64 --kv-heads 8 --head-dim 128 --ctx 4096|--batch 16 --heads 64 --kv-heads 8 --head-dim 128 --ctx 4096"
  "ragged-b8|--batch 8 --heads 32 --kv-heads 8 --head-dim 128 --ctx 65536,1024,2048,512,30000,4096,100,8000|"
)
for entry in "${bench_cases[@]}"; do
  IFS='|' read -r name flags peer <<<"$entry"
  [ -n "$quick" ] && [ "$name" != "h100-fig8-64k" ] && continue
  $bin cuda bench $flags --format json 2>&1 | python3 -c "
import sys, json
text = sys.stdin.read(); start = text.find('{')
d = json.loads(text[start:]); d['case'] = '$name'; print(json.dumps(d))" >>"$out/bench.jsonl" || echo "bench $name failed" >&2
  if [ -n "$peer" ]; then
    python3 bench/gpu/sdpa_peer.py $peer 2>&1 | sed "s/^{/{\"case\": \"$name\", /" >>"$out/peers.jsonl"
  fi
done
python3 - "$out" <<'PY'
import json, sys, collections
out = sys.argv[1]
peers = collections.defaultdict(dict)
for line in open(f"{out}/peers.jsonl"):
    if line.startswith("{"):
        r = json.loads(line); peers[r["case"]][r["backend"]] = r
print(f"{'case':20} {'floor_us':>9} {'stream-k':>9} {'fixed':>9} {'no-split':>9} {'flash':>9} {'cudnn':>9}  sk_of_floor")
for line in open(f"{out}/bench.jsonl"):
    d = json.loads(line); res = {r["strategy"]: r for r in d["results"]}
    p = peers.get(d["case"], {})
    f = lambda b: f"{p[b]['median_us']:9.1f}" if b in p and "median_us" in p[b] else f"{'-':>9}"
    print(f"{d['case']:20} {d['floor_us']:9.1f} {res['stream-k']['median_us']:9.1f} {res['fixed-split']['median_us']:9.1f} "
          f"{res['no-split']['median_us']:9.1f} {f('flash')} {f('cudnn')}  {res['stream-k']['fraction_of_floor']:.2f}")
PY
exit $status

#!/usr/bin/env bash
# device call A (not committed): correctness of the new kernel paths
set -uo pipefail
dev=$1; out=$2; mkdir -p "$out"
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/$dev/libleanattn.so PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/machine.txt"
sanitize() {
t0=$SECONDS
for tool in memcheck racecheck synccheck; do
  for p in "--batch 2 --heads 4 --head-dim 96 --ctx 700,90" "--batch 2 --heads 4 --kv-heads 2 --q-len 4 --head-dim 256 --ctx 600,40 --layout paged --block-size 16" \
           "--batch 1 --heads 71 --kv-heads 1 --head-dim 64 --ctx 3000" "--batch 2 --heads 10 --kv-heads 2 --q-len 4 --head-dim 128 --ctx 2000,33 --layout ragged"; do
    log="$out/sanitize-$tool-$(echo "$p" | tr -c 'a-z0-9' '_' | cut -c1-60).log"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$dev/leanattn" cuda validate $p > "$log" 2>&1
    echo "$tool rc $? : $p : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)" >> "$out/sanitize.txt"
  done
done
echo "sanitize: $(grep -vc 'rc 0 ' "$out/sanitize.txt") non-zero of $(wc -l < "$out/sanitize.txt") ($((SECONDS-t0)) s)" > "$out/sanitize-summary.txt"
}
sanitize &
sanpid=$!
t0=$SECONDS
{
n=0
layouts=("--layout padded" "--layout paged --block-size 16" "--layout ragged" "--layout token-major")
for d in 64 96 128 256; do
  for gq in 1:1 1:2 3:1 7:1 4:4 5:4 16:2 7:8 71:1 16:8; do
    g=${gq%%:*}; q=${gq#*:}
    if [ $d = 256 ] && [ $((g*q)) -gt 64 ]; then continue; fi
    for dt in fp16 bf16; do
      flags="${layouts[$((n % 4))]} --dtype $dt --batch 3 --kv-heads 2 --heads $((2*g)) --q-len $q --head-dim $d --ctx $q,700,2600"
      n=$((n+1))
      echo "== $flags"
      "$dev/leanattn" cuda validate $flags || echo "   ^ FAILED"
    done
  done
done
} > "$out/paths.log" 2>&1
echo "paths: $(grep -c FAILED "$out/paths.log") failed of $(grep -c '^==' "$out/paths.log") ($((SECONDS-t0)) s)" | tee "$out/summary.txt"
t0=$SECONDS
{
for f in data/models/*.json; do
  m=$(basename "$f" .json)
  for q in 1 4; do
    for dt in fp16 bf16; do
      flags="--model $m --q-len $q --dtype $dt --layout ragged --batch 4 --ctx 3000,77,1500,9000"
      echo "== $flags"
      "$dev/leanattn" cuda validate $flags || echo "   ^ FAILED"
    done
  done
done
} > "$out/models-validate.log" 2>&1
echo "models: $(grep -c FAILED "$out/models-validate.log") failed of $(grep -c '^==' "$out/models-validate.log") ($((SECONDS-t0)) s)" | tee -a "$out/summary.txt"
t0=$SECONDS
timeout 200 "$dev/test_cuda" > "$out/test_cuda.log" 2>&1; echo "test_cuda rc $? $(tail -2 "$out/test_cuda.log" | head -1) ($((SECONDS-t0)) s)" | tee -a "$out/summary.txt"
wait $sanpid
cat "$out/sanitize-summary.txt" | tee -a "$out/summary.txt"

#!/usr/bin/env bash
# Keeps the repository small enough to travel to the GPU machine beside a build (64 MiB in all): every tracked file
# of bench/results/raw over 2 KB that a tool reads (.json, .jsonl, .log, .txt) becomes FILE.xz (xz -9, about a tenth
# of the size), in git too. leanattn's readers (calibrate, simulate --trace, cuda bench --shapes, the bench tools) and
# the Python scripts (bench/gpu/records.py's open_text) read FILE as FILE.xz, so the commands the notes and docs quote
# keep working. The files tests read with their own reader stay as written (kept below). ab.sh's per-run records are
# packed per folder (below; `tar -xJf ab-runs.tar.xz` gives them back).
# usage (from anywhere in the repository, after a run's folder is committed or added): scripts/compress_raw.sh [--dry-run]
set -euo pipefail
cd "$(dirname "$0")/.."
dry=""; [ "${1:-}" = "--dry-run" ] && dry=1
kept=(  # read by tests/app/test_calibrate_cli.cpp as plain files
  bench/results/raw/gpu-2026-11-26-calibration-v22-h100/cal-device/heldout-1.jsonl
  bench/results/raw/gpu-2026-11-26-calibration-v22-h100/cal-device/heldout-2.jsonl
  bench/results/raw/gpu-2026-11-26-calibration-v22-h100/cal-device/trace-llama-b1-16k.json
  bench/results/raw/gpu-2026-11-27-live-steps/trace-cl34b16-paper.json
)
count=0 before=0 after=0
# ab.sh's per-run records (A-SHAPE-1.json, its .err, ...: thousands of small files, each of which costs a copy to the GPU machine a
# tar header and block) go into one ab-runs.tar.xz per folder; ab.txt beside them is the table they make.
packed=0
while IFS= read -r dir; do
  mapfile -t runs < <(git ls-files -- "$dir" | grep -E "^$dir/[A-Z]-[^/]*-[0-9]+\.(json|err)$" | sed "s|^$dir/||")
  [ "${#runs[@]}" -gt 0 ] || continue
  packed=$((packed + ${#runs[@]}))
  if [ -n "$dry" ]; then echo "$dir: ${#runs[@]} ab.sh records into ab-runs.tar.xz"; continue; fi
  [ ! -e "$dir/ab-runs.tar.xz" ] || { echo "compress_raw.sh: $dir/ab-runs.tar.xz exists: unpack it, add the new records, run again" >&2; exit 1; }
  tar -C "$dir" -cf - -- "${runs[@]}" | xz -9 -T1 > "$dir/ab-runs.tar.xz"
  (cd "$dir" && git rm -q --cached -- "${runs[@]}" && rm -- "${runs[@]}")
  git add -- "$dir/ab-runs.tar.xz"
done < <(git ls-files bench/results/raw | grep -E '/[A-Z]-[^/]*-[0-9]+\.(json|err)$' | sed 's|/[^/]*$||' | sort -u)
while IFS= read -r -d '' f; do
  case $f in *.json|*.jsonl|*.log|*.txt) ;; *) continue ;; esac
  size=$(stat -c %s "$f")
  [ "$size" -gt 2048 ] || continue
  for k in "${kept[@]}"; do [ "$f" = "$k" ] && continue 2; done
  count=$((count + 1)); before=$((before + size))
  if [ -n "$dry" ]; then echo "$f"; continue; fi
  xz -9 -T1 -c -- "$f" > "$f.xz"
  after=$((after + $(stat -c %s "$f.xz")))
  git rm -q --cached -- "$f" && rm -- "$f" && git add -- "$f.xz"
done < <(git ls-files -z bench/results/raw)
echo "compress_raw.sh: $packed ab.sh records packed; $count files, $((before / 1024)) KB -> $((after / 1024)) KB${dry:+ (dry run: nothing changed)}"

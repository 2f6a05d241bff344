#!/usr/bin/env bash
# The L2's aging (KernelModel::reread_lag_mb), fitted alone into the shipped kernel models of 0cba21a: each starts from
# that commit's file with reread_lag_mb 50 MB and fits it and reread_fraction only (the rest held), on kernel v34's
# training runs: steps of run() on the training sweep plus the live-steps sweep (the shipped fit's own data), host-lengths
# steps on v34's host-lengths training sweep. Then each is checked on v34's held-out sweep (two rounds), and the
# steps-of-run() model on the six rounds of three H100s and on train2 (240 problems no fit saw).
# Output: bench/results/calibration-h100-fit-v34-lag.txt. Run from the repository root after ./scripts/build.sh.
set -euo pipefail
L=build/apps/leanattn
V=bench/results/raw/gpu-2026-11-27-v34-calibration
T2=bench/results/raw/gpu-2026-11-27-train2/cal-device
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git show 0cba21a:data/kernels/leanattn-h100.json > "$tmp/device-start.json"
git show 0cba21a:data/kernels/leanattn-h100-host.json > "$tmp/host-start.json"
raw_text() { for f; do if [ -e "$f" ]; then cat "$f"; else xz -dc "$f.xz"; fi; done; }  # raw results may be kept as FILE.xz
raw_text "$V/cal-device/train.jsonl" "$V/live/live-device-1.jsonl" > "$tmp/train+live.jsonl"
device_note="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fitted"])' "$tmp/device-start.json"); then (2026-11-27) reread_lag_mb added, fitted alone with reread_fraction on the same runs from this fit (bench/results/calibration-h100-fit-v34-lag.sh)"
host_note="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fitted"])' "$tmp/host-start.json"); then (2026-11-27) reread_lag_mb added, fitted alone with reread_fraction on kernel v34's host-lengths training sweep (bench/results/raw/gpu-2026-11-27-v34-calibration/cal-host/train.jsonl) from this fit (bench/results/calibration-h100-fit-v34-lag.sh)"
fit_alone=(--set reread_lag_mb=50 --fit reread_fraction --fit reread_lag_mb)
{
    echo "## steps of run(): fit"
    $L calibrate --measured "$tmp/train+live.jsonl" --start "$tmp/device-start.json" "${fit_alone[@]}" --name leanattn-h100 --note "$device_note" \
        --check "$V/cal-device/heldout-1.jsonl" --check "$V/cal-device/heldout-2.jsonl" -o data/kernels/leanattn-h100.json 2>&1
    echo "## steps of run(): the six rounds of three H100s"
    $L calibrate --kernel data/kernels/leanattn-h100.json --check "$V/cal-device/heldout-1.jsonl" --check "$V/cal-device/heldout-2.jsonl" \
        --check "$V/second-machine/heldout-1.jsonl" --check "$V/second-machine/heldout-2.jsonl" \
        --check "$V/third-machine/cal-device/heldout-1.jsonl" --check "$V/third-machine/cal-device/heldout-2.jsonl"
    echo "## steps of run(): train2, which no fit saw"
    $L calibrate --kernel data/kernels/leanattn-h100.json --check "$T2/train2.jsonl"
    echo "## host-lengths steps: fit"
    $L calibrate --measured "$V/cal-host/train.jsonl" --start "$tmp/host-start.json" "${fit_alone[@]}" --name leanattn-h100-host --note "$host_note" \
        --check "$V/cal-host/heldout-1.jsonl" --check "$V/cal-host/heldout-2.jsonl" -o data/kernels/leanattn-h100-host.json 2>&1
} > bench/results/calibration-h100-fit-v34-lag.txt
echo "wrote data/kernels/leanattn-h100{,-host}.json and bench/results/calibration-h100-fit-v34-lag.txt"

#!/usr/bin/env bash
# calibration.sh BUILD OUT — the measured side of the simulator's calibration, in one GPU call.
#
# BUILD holds a leanattn binary built for the GPU (bench/gpu/README.md: what may travel). Times, with
# `leanattn cuda bench --shapes` (CUDA-graph replays after an L2 flush, median), every problem line of
# data/calibration/train-shapes.txt, train2-shapes.txt, live-shapes.txt and live2-shapes.txt (steps of a cache at
# ragged live lengths, also as the paper's plan: the training's short segments) once and of heldout-shapes.txt twice
# (the two rounds give each shape's run-to-run noise), and takes per-CTA traces of five problems for `leanattn
# simulate --trace`. Writes OUT/{machine.txt, train.jsonl, train2.jsonl, live.jsonl, live2.jsonl, heldout-1.jsonl,
# heldout-2.jsonl, trace-*.json, *.log}; the fit reads the training and live sweeps as one (`cat` them:
# docs/calibration.md).
# CALIBRATION_DEVICE (default: the device file that describes this GPU, as `cuda bench` picks it, else h100-sxm) is
# the device file the plans are made with: the GPU's own, so that the aligned stream-k rule reads the same timing keys
# here as `leanattn calibrate --device` does there (each JSON line's "device_file" records it).
# CALIBRATION_FLAGS (default none) go to every `cuda bench`, e.g. "--lengths host" to time host-lengths steps
# (no traces then: the traced kernel reads its lengths on the device).
# `leanattn calibrate` reads the JSON lines (docs/calibration.md); sweeps of two machines (machine.txt names the GPU by
# its UUID) go to it as two rounds of one sweep.
set -euo pipefail
build=${1:?usage: calibration.sh BUILD OUT}
out=${2:?usage: calibration.sh BUILD OUT}
mkdir -p "$out"
export LEANATTN_DATA=$PWD/data
leanattn="$build/leanattn"
{
    date -u +"%Y-%m-%d %H:%M UTC"
    nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} > "$out/machine.txt" 2>&1
repeat=${CALIBRATION_REPEAT:-50}
read -r -a flags <<< "${CALIBRATION_FLAGS:-}"
device_flag=()
[ -n "${CALIBRATION_DEVICE:-}" ] && device_flag=(--device "$CALIBRATION_DEVICE")
for sweep in train train2 live live2; do
    "$leanattn" cuda bench --shapes "data/calibration/$sweep-shapes.txt" --repeat "$repeat" "${device_flag[@]}" "${flags[@]}" -o "$out/$sweep.jsonl" 2> "$out/$sweep.log"
done
for round in 1 2; do
    "$leanattn" cuda bench --shapes data/calibration/heldout-shapes.txt --repeat "$repeat" "${device_flag[@]}" "${flags[@]}" -o "$out/heldout-$round.jsonl" 2> "$out/heldout-$round.log"
done
# Traces: a split GQA decode, a ragged batch, MQA, many short requests, the paper's long head-dim-64 case.
traces=(
    "llama-b1-16k:--model llama-3-8b --batch 1 --ctx 16384"
    "ragged-b8:--model llama-3-8b --batch 8 --ctx 16000,900,3000,12000,500,7000,2500,10000"
    "falcon-b4-8k:--model falcon-7b --batch 4 --ctx 8192"
    "b64-1k:--model llama-3-8b --batch 64 --ctx 1024"
    "paper-b6-64k:--batch 6 --heads 48 --head-dim 64 --ctx 65536"
)
[ ${#flags[@]} -eq 0 ] && for entry in "${traces[@]}"; do
    name=${entry%%:*}
    # shellcheck disable=SC2086
    "$leanattn" cuda bench ${entry#*:} --repeat "$repeat" "${device_flag[@]}" --format json --trace "$out/trace-$name.json" > "$out/trace-$name.bench.json" 2>> "$out/traces.log"
done
echo "calibration.sh: done in $SECONDS s" | tee -a "$out/machine.txt"

set -x
lscpu | grep -E "Model name|^CPU\(s\)|MHz" ; nproc; date -u
for i in 1 2 3; do taskset -c 1 .devbuild-xz-q161/bench_auto_speed data/kernels/leanattn-h100.json h100-sxm bench/results/raw/gpu-2026-11-27-v34-calibration/cal-device/heldout-1.jsonl > $OUT/auto-speed-$i.txt 2>&1; done
cat $OUT/auto-speed-*.txt | grep -E "choose_strategy|the same|plan_us|stream-k|fixed|no-split|loading"

#!/usr/bin/env bash
# auto_choices_all.sh BENCH_AUTO_CHOICES OUT — auto's choices for every measured sweep in the repository, under both
# H100 kernel models: OUT/<model>/<sweep path with / as _>.txt, one line per problem and way (bench/auto_choices.cpp).
# Run it with the bench_auto_choices of two builds and `diff -r` the two OUTs: no line differs when a change to auto's
# rule or to its weighing moves no choice and no predicted time. Files the reader refuses (not `cuda bench --shapes`
# records) are skipped and counted.
set -uo pipefail
bin=${1:?usage: auto_choices_all.sh BENCH_AUTO_CHOICES OUT}
out=${2:?usage: auto_choices_all.sh BENCH_AUTO_CHOICES OUT}
cd "$(dirname "$0")/.."
read_ok=0 refused=0 lines=0
for model in leanattn-h100 leanattn-h100-host; do
    mkdir -p "$out/$model"
    for sweep in $(git ls-files 'bench/results/raw/*.jsonl' 'bench/results/raw/*.jsonl.xz'); do
        # A sweep kept as FILE.jsonl.xz (bench/results/raw/README.md) is read so and named as FILE.jsonl
        target="$out/$model/$(echo "${sweep%.xz}" | tr / _).txt"
        if "$bin" "data/kernels/$model.json" h100-sxm "$sweep" > "$target" 2> /dev/null; then
            read_ok=$((read_ok + 1)); lines=$((lines + $(wc -l < "$target")))
        else
            rm -f "$target"; refused=$((refused + 1))
        fi
    done
done
echo "auto_choices_all.sh: $read_ok sweeps x models read, $refused refused, $lines choices in $out"

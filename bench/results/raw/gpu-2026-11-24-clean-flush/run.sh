#!/usr/bin/env bash
# cuda bench's L2 flush made clean (write, read, GPU spin) as the suite's: E (v19, memset flush) against F.
set -uo pipefail
out=$1; mkdir -p $out
for s in E F; do mkdir -p .devbuild-$s; xz -dc .devbuild-xz4/leanattn-$s.xz > .devbuild-$s/leanattn; chmod +x .devbuild-$s/leanattn; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
bash bench/gpu/ab.sh .devbuild-E .devbuild-F $out/ab > $out/ab.log 2>&1; cat $out/ab/ab.txt
timeout 60 compute-sanitizer --tool initcheck .devbuild-F/leanattn cuda bench --batch 2 --heads 8 --head-dim 64 --ctx 3000,9 --repeat 3 > $out/initcheck-bench.log 2>&1; echo "initcheck bench rc $?: $(grep SUMMARY $out/initcheck-bench.log | tail -1)"
bash bench/gpu/calibration.sh .devbuild-F $out/cal > $out/cal.log 2>&1
.devbuild-F/leanattn cuda bench --shapes bench/gpu/row-block-shapes.txt --strategy all -o $out/cal/row-blocks.jsonl 2> $out/cal/row-blocks.log
rm -f $out/cal/trace-*; echo "done $SECONDS s"

#!/usr/bin/env bash
# Nsight Compute's duration of every kernel of fixed-split on Qwen2.5-7B B=1 16k, run() against a host-lengths step.
out=$1; mkdir -p $out .devbuild
xz -dc .devbuild-xz-p3/leanattn-cur.xz > .devbuild/leanattn-cur; chmod +x .devbuild/leanattn-cur
export LEANATTN_DATA=$PWD/data
for L in device host; do
  for m in qwen2.5-7b llama-3-8b; do
    echo "== $m lengths $L"
    ncu --cache-control none --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum -c 12 \
      .devbuild/leanattn-cur cuda bench --model $m --batch 1 --ctx 16384 --strategy fixed-split --repeat 1 --lengths $L 2>&1 | grep -E "kernel|live_plan|gpu__time|dram__|lts__" | head -60
  done
done > $out/ncu.txt 2>&1
echo done

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q119/run.sh $OUT", carry=[".devbuild-xz-q119"], kind="nvidia-h100-x1"), after .devbuild-xz-q113/run.sh (A) and .devbuild-xz-q117/run-first.sh (B = v34) on the same warm machine
# Why v34's steps of run() at Falcon-7B B=1 2-4k take 4-8% longer than v33's: Nsight Compute on the decode kernel of both
# builds (launch stats, warp states with the no-instruction stall, instruction cache), as steps of run() and as
# host-lengths steps.
set -uo pipefail
out=$1; r=$out/r; mkdir -p $r
[ -x .devbuild-a/leanattn ] && [ -x .devbuild-b/leanattn ] || { echo "no .devbuild-a or -b: the earlier calls did not run on this machine"; exit 3; }
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
m="smsp__average_warp_latency_issue_stalled_no_instruction,smsp__average_warps_issue_stalled_no_instruction_per_issue_active,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,gpu__time_duration.sum,sm__cycles_elapsed.max,launch__registers_per_thread,smsp__inst_executed.sum,sm__icc_requests.sum,sm__icc_misses.sum"
for v in a b; do
  for l in device host; do
    for ctx in 2048 16384; do
      ncu --metrics $m -k regex:decode --cache-control all -c 3 .devbuild-$v/leanattn cuda bench --model falcon-7b --batch 1 --ctx $ctx --strategy fixed-split --lengths $l --repeat 1 > $r/ncu-$v-$l-$ctx.txt 2>&1
      echo "$v $l $ctx rc $?"
    done
  done
done
for f in $r/ncu-*.txt; do echo "== $f"; grep -E "decode|no_instruction|long_scoreboard|barrier|wait_per|short_score|math_pipe|gpu__time|cycles_elapsed|registers|inst_executed|icc" $f | head -40; done
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# Nsight Compute on every peer of a few model shapes (peer_kernels.py: our plans and SDPA's backends, each launch in
# an NVTX range): per kernel its grid, block, registers, shared memory, occupancy, GPU time, DRAM bytes and throughput
# and L2 hit rate, caches flushed before each kernel (ncu's default, like the suite's flush) and clocks left as they
# are (the suite's timing does not lock them). Writes OUT/ncu.txt (ncu's output whole) and OUT/kernels.txt (one line
# per kernel launch).
# usage (on the GPU machine, from the repository root, LEANATTN_LIBRARY and PYTHONPATH set):
#   bench/gpu/peer_kernels.sh PLANS OUT [peer_kernels.py flags]
set -uo pipefail
plans=$1; out=$2; shift 2
mkdir -p "$out"
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__waves_per_multiprocessor,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
ncu --nvtx --nvtx-include "profile/" --clock-control none --cache-control all --csv --page raw \
    --metrics "$metrics" python3 bench/gpu/peer_kernels.py "$plans" "$@" >"$out/ncu.txt" 2>"$out/ncu.log"
echo "ncu rc $?"
python3 - "$out/ncu.txt" >"$out/kernels.txt" <<'EOF'
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
if len(rows) < 3:
    sys.exit("no ncu rows")
head, units, data = rows[0], rows[1], rows[2:]
col = {name: i for i, name in enumerate(head)}
show = ["gpu__time_duration.sum", "launch__grid_size", "launch__block_size", "launch__registers_per_thread", "launch__shared_mem_per_block",
        "launch__waves_per_multiprocessor", "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sector_hit_rate.pct"]
show = [m for m in show if m in col]
ranges = next(i for n, i in col.items() if "Push/Pop_Range" in n)
print("plan line | peer | kernel | " + " | ".join(f"{m} ({units[col[m]]})" for m in show))
for r in data:
    quoted = r[ranges].split('"')  # the nested ranges, each "<domain>:name:none:...", the outer "profile" first
    inner = quoted[3].split(":", 1)[1].rsplit(":none", 6)[0] if len(quoted) > 3 else "?"
    print(f"{inner} | {r[col['Kernel Name']][:60]} | " + " | ".join(r[col[m]] for m in show))
EOF
cat "$out/kernels.txt"

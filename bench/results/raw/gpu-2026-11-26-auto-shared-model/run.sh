#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q81/run.sh $OUT", carry=[".devbuild-xz-q81"], kind="nvidia-h100-x1"), 2026-11-26 19:34 UTC, GPU-3ba38ae3, 141 s on the machine (libleanattn.so: kernel v29, auto weighing 16 and 8 CTAs per output first; data/kernels/leanattn-h100-host.json: the fit of ../../calibration-h100-fit-v27-host-shared.txt)
# The host-lengths model refitted with shared merges on v27's sweep and the contributors sweep (the working tree's
# data/kernels/leanattn-h100-host.json), and auto weighing stream-k at 16 and 8 CTAs per output before fixed-split's
# other split counts: its choices beside the old ones and cuDNN (plan_probe.py, twice), then every model (models.py).
set -uo pipefail
out=$1; q=.devbuild-xz-q81; mkdir -p .devbuild $out
xz -dc $q/libleanattn.so.xz > .devbuild/libleanattn.so
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for r in 1 2; do timeout 120 python3 bench/gpu/plan_probe.py $q/plans.txt --dtypes fp16,bf16 > $out/plan_probe-$r.txt 2>&1; echo "plan_probe $r rc $? at $SECONDS s"; grep leanattn $out/plan_probe-$r.txt; done
timeout 300 python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $? at $SECONDS s"; tail -4 $out/models.log
date -u >> $out/machine.txt
bash bench/gpu/pack_out.sh $out

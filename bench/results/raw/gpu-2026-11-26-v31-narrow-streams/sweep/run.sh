#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q94/run.sh $OUT", carry=[".devbuild-xz-q94"], kind="nvidia-h100-x1"), 2026-11-26 23:52 UTC, GPU in machine.txt; the same build as ../experiment
# Kernel experiment v31, where it pays: no-split with 8 streaming warps (A) against 4 (B, LEANATTN_STREAM_WARPS=4),
# over the number of outputs (Llama-3-8B B=4-16 and Phi-3-medium B=6-13 at 4k: 32-130 whole-output CTAs), context
# (1k-16k), group (Qwen2.5-7B's 7), a ragged batch, bf16, device lengths and head dim 64; ab.sh --strategy no-split.
set -uo pipefail
out=$1; q=.devbuild-xz-q94; mkdir -p $out/r .devbuild .devbuild-w4
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
printf '#!/usr/bin/env bash\nLEANATTN_STREAM_WARPS=4 exec %s/.devbuild/leanattn "$@"\n' "$PWD" > .devbuild-w4/leanattn; chmod +x .devbuild-w4/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
bash bench/gpu/ab.sh .devbuild .devbuild-w4 $r/ab-no-split --shapes $q/shapes.txt --strategy no-split > /dev/null 2>&1; echo "ab rc $? at $SECONDS s"
grep -v "plans:" $r/ab-no-split/ab.txt
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

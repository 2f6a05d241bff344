#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q93/run.sh $OUT", carry=[".devbuild-xz-q93"], kind="nvidia-h100-x1"), 2026-11-26 23:50 UTC, GPU in machine.txt; the build: this tree at c9e5c98 plus the LEANATTN_STREAM_WARPS switch (DecodeParams::stream_teams read from the environment in decode_params)
# Kernel experiment v31: one-warp teams (tiles of up to 16 rows) leave the blocks to the first LEANATTN_STREAM_WARPS
# of a CTA's 8 warps (the rest idle to the segment's end): whether fewer streams per SM read HBM faster, as Nsight
# Compute saw cuDNN's 4-warp CTAs do on Phi-3-medium B=8 4k (61.6 us against our no-split's 66.0 on the same 80 SMs).
# Validation first (4 and 2 streaming warps, three shapes, host and device lengths), then ab.sh: all 8 warps (A)
# against 4 (B) on 14 shapes, against 6 and 2 on four.
set -uo pipefail
out=$1; q=.devbuild-xz-q93; mkdir -p $out/r .devbuild
xz -dc $q/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
for w in 2 4 6; do
  mkdir -p .devbuild-w$w
  printf '#!/usr/bin/env bash\nLEANATTN_STREAM_WARPS=%s exec %s/.devbuild/leanattn "$@"\n' $w "$PWD" > .devbuild-w$w/leanattn; chmod +x .devbuild-w$w/leanattn
done
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
r=$out/r
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt
for w in 4 2; do
  for lengths in host device; do
    for f in "--model phi-3-medium --batch 3 --ctx 4000,100,7000" "--model llama-3-8b --batch 3 --ctx 4000,100,7000 --q-len 4" "--model qwen2.5-7b --batch 2 --ctx 9000,333 --dtype bf16"; do
      LEANATTN_STREAM_WARPS=$w .devbuild/leanattn cuda validate $f --lengths $lengths >> $r/validate.txt 2>&1; echo "validate w$w $lengths [$f] rc $?" | tee -a $r/validate-rc.txt
    done
  done
done
bash bench/gpu/ab.sh .devbuild .devbuild-w4 $r/ab-w4 --shapes $q/shapes.txt > /dev/null 2>&1; echo "ab w4 rc $? at $SECONDS s"
cat $r/ab-w4/ab.txt
for w in 6 2; do
  bash bench/gpu/ab.sh .devbuild .devbuild-w$w $r/ab-w$w --shapes $q/shapes-few.txt > /dev/null 2>&1; echo "ab w$w rc $? at $SECONDS s"
  cat $r/ab-w$w/ab.txt
done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q138/run.sh $OUT", carry=[".devbuild-xz-q138"])
# The device-lengths kernel model refitted on kernel v34's training sweep plus the live-steps sweep (data/kernels/
# leanattn-h100.json in this tree; the library is HEAD 446cf95's, which reads kernel files at run time): auto reading
# its lengths on the device (the model it weighs with) in models.py (every model, fp16 and bf16, beside SDPA) and in
# ragged_live.py (plans for a capacity at ragged live lengths, the held-out shapes), against the runs of the fit before.
set -uo pipefail
out=$1; q=.devbuild-xz-q138; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
timeout 300 python3 bench/gpu/models.py --bf16 --out $r/models > $r/models.log 2>&1; echo "models rc $? at $SECONDS s"; grep -i "geometric" $r/models/models.md
timeout 240 python3 bench/gpu/ragged_live.py --out $r/ragged --shapes 16x4096,64x1024,4x8192 --draws 2 --reps 40 > $r/ragged.log 2>&1; echo "ragged rc $? at $SECONDS s"
sed -n '/over the best/,$p' $r/ragged/ragged.txt | head -20
date -u >> $r/machine.txt
[ -f $r/ragged/ragged.jsonl ] && xz -9 $r/ragged/ragged.jsonl
[ -f $r/models/models.jsonl ] && xz -9 $r/models/models.jsonl
bash bench/gpu/pack_out.sh $out

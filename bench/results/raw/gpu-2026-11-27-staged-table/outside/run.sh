#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q105/run2.sh $OUT", carry=[".devbuild-xz-q105"], kind="nvidia-h100-x1")
# EXPERIMENT, third call (staged-table.patch as of this call): the step table copied into device memory OUTSIDE the
# captured graph (LEANATTN_STAGED_TABLE=2: a copy on a stream of its own, waited for, before the capture), so a replay
# times the kernel reading its table from device memory alone. A/Bs on the patched build (ab.sh, auto): its launch's-table
# path against mode 2, and the device-lengths step against mode 2; validation of mode 2.
set -uo pipefail
out=$1; q=.devbuild-xz-q105; r=$out/r; mkdir -p $r .devbuild-b .devbuild-s2
xz -dc $q/leanattn.xz > .devbuild-b/leanattn; chmod +x .devbuild-b/leanattn
printf '#!/usr/bin/env bash\nLEANATTN_STAGED_TABLE=2 exec %s/.devbuild-b/leanattn "$@"\n' "$PWD" > .devbuild-s2/leanattn; chmod +x .devbuild-s2/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in "--model falcon-7b --batch 1 --ctx 16384" "--model llama-3-8b --batch 8 --ctx 16000,900,3000,12000,500,7000,2500,10000 --layout paged --dtype bf16" "--model qwen2.5-7b --batch 3 --ctx 5000,700,3000 --q-len 4" "--batch 4 --heads 32 --head-dim 64 --ctx 1024,300,900,5"; do
  # shellcheck disable=SC2086
  .devbuild-s2/leanattn cuda validate $f --lengths host >> $r/validate.txt 2>&1; echo "validate staged outside [$f] rc $?"
done
.devbuild-s2/leanattn cuda bench --model falcon-7b --batch 1 --ctx 16384 --lengths host --strategy auto > $r/one.txt 2>&1; echo "one bench rc $?"; tail -3 $r/one.txt
bash bench/gpu/ab.sh .devbuild-b .devbuild-s2 $r/param-vs-outside --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "ab 1 rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-b:--lengths\ device .devbuild-s2:--lengths\ host $r/device-vs-outside --shapes $q/shapes.txt --strategy auto > /dev/null 2>&1; echo "ab 2 rc $? at $SECONDS s"
for t in param-vs-outside device-vs-outside; do echo "== $t"; grep -v "plans:" $r/$t/ab.txt; done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

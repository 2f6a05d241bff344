#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q105/run.sh $OUT", carry=[".devbuild-xz-q105", ".devbuild-xz-q103/leanattn.xz"], kind="nvidia-h100-x1")  (second call: the buffers made before capture)
# EXPERIMENT (patch staged-table.patch, not committed): a host-lengths step whose table the stream copies from pinned
# memory into device memory (a memcpy node of the captured graph) and the kernel reads from there, against the table in
# the launch's parameters (today) and against the step that reads its lengths on the device. Three A/Bs (ab.sh, A B A B,
# cuda bench --strategy auto): HEAD against the patched build (param path: what the runtime select costs it); the
# patched build's param path against its staged path; device lengths against the staged path. Validation of the staged path.
set -uo pipefail
out=$1; q=.devbuild-xz-q105; r=$out/r; mkdir -p $r .devbuild-a .devbuild-b .devbuild-s
xz -dc .devbuild-xz-q103/leanattn.xz > .devbuild-a/leanattn; xz -dc $q/leanattn.xz > .devbuild-b/leanattn; chmod +x .devbuild-a/leanattn .devbuild-b/leanattn
printf '#!/usr/bin/env bash\nLEANATTN_STAGED_TABLE=1 exec %s/.devbuild-b/leanattn "$@"\n' "$PWD" > .devbuild-s/leanattn; chmod +x .devbuild-s/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in "--model falcon-7b --batch 1 --ctx 16384" "--model llama-3-8b --batch 8 --ctx 16000,900,3000,12000,500,7000,2500,10000 --layout paged --dtype bf16" "--model qwen2.5-7b --batch 3 --ctx 5000,700,3000 --q-len 4" "--batch 4 --heads 32 --head-dim 64 --ctx 1024,300,900,5"; do
  # shellcheck disable=SC2086
  .devbuild-s/leanattn cuda validate $f --lengths host >> $r/validate.txt 2>&1; echo "validate staged [$f] rc $?"
done
bash bench/gpu/ab.sh .devbuild-a .devbuild-b $r/head-vs-patched --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "ab 1 rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-b .devbuild-s $r/param-vs-staged --shapes $q/shapes.txt --strategy auto -- --lengths host > /dev/null 2>&1; echo "ab 2 rc $? at $SECONDS s"
bash bench/gpu/ab.sh .devbuild-b:--lengths\ device .devbuild-s:--lengths\ host $r/device-vs-staged --shapes $q/shapes.txt --strategy auto > /dev/null 2>&1; echo "ab 3 rc $? at $SECONDS s"
for t in head-vs-patched param-vs-staged device-vs-staged; do echo "== $t"; grep -v "plans:" $r/$t/ab.txt; done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# The fixed-split gap without torch in the process (bench/gpu/no_torch_probe.py), then with torch initialised first,
# then cuda bench on the same plans: one machine, one call.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn libleanattn.so; do xz -dc .devbuild-xz-q22/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
ls /usr/local/cuda*/lib64/libcudart.so* 2>&1 | head -3 > $out/cudart.txt
timeout 100 python3 bench/gpu/no_torch_probe.py > $out/no-torch.txt 2>&1; echo "no torch rc $?"; cat $out/no-torch.txt
timeout 100 python3 bench/gpu/no_torch_probe.py --torch > $out/with-torch.txt 2>&1; echo "with torch rc $?"; cat $out/with-torch.txt
for a in "--model qwen2.5-7b --q-len 4 --strategy fixed-split --splits 16" "--model qwen2.5-7b --q-len 4 --strategy fixed-split --splits 24" "--model falcon-7b --strategy fixed-split --splits 26"; do
  echo "== cuda bench $a: $(.devbuild/leanattn cuda bench $a --ctx 16384 --lengths host --repeat 100 --format json | python3 -c 'import json,sys; print([round(r["median_us"],1) for r in json.load(sys.stdin)["results"]])')"
done | tee $out/cuda-bench.txt
bash bench/gpu/pack_out.sh $out

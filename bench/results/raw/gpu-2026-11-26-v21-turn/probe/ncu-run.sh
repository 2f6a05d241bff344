#!/usr/bin/env bash
# Why a turn of the tensor-core path takes ~1.1 us per warp whatever the head dim: Nsight Compute's warp
# stall reasons and per-instruction stall samples on no-split runs (a few CTAs alone on the GPU).
set -uo pipefail
out=$1; mkdir -p $out/p .devbuild
xz -dc .devbuild-xz-q2/leanattn.xz > .devbuild/leanattn; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
L=$PWD/.devbuild/leanattn
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/p/machine.txt; date -u >> $out/p/machine.txt
prof() {  # name, flags...
  local name=$1; shift
  ncu --graph-profiling node --kernel-name regex:'decode' --launch-count 1 --set full --import-source yes -o $out/p/$name -f \
      $L cuda bench "$@" --repeat 1 > $out/p/$name.log 2>&1
  ncu -i $out/p/$name.ncu-rep --page details > $out/p/$name.details.txt 2>&1
  ncu -i $out/p/$name.ncu-rep --page source --csv --print-source sass > $out/p/$name.sass.csv 2>&1
  echo "$name: $(grep -c . $out/p/$name.sass.csv) sass lines"
}
prof qwen-nosplit --model qwen2.5-7b --ctx 16384 --strategy no-split --lengths host
prof falcon-nosplit --model falcon-7b --ctx 16384 --strategy no-split --lengths host
prof llama2-nosplit --model llama-2-7b --batch 1 --ctx 16384 --strategy no-split --lengths host
prof qwen-sk66 --model qwen2.5-7b --ctx 16384 --strategy stream-k --grid 66 --lengths host
(cd $out && tar czf prof.tgz p && rm -rf p)
ls -la $out
echo "done $SECONDS s"

#!/usr/bin/env bash
# The flush's read kept by the compiler? SASS of read_kernel in F (threadIdx condition) and G (run-time key); A/B F vs G.
set -uo pipefail
out=$1; mkdir -p $out
for s in F G; do mkdir -p .devbuild-$s; xz -dc .devbuild-xz4/leanattn-$s.xz > .devbuild-$s/leanattn; chmod +x .devbuild-$s/leanattn; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
for s in F G; do
  f=$(cuobjdump -symbols .devbuild-$s/leanattn 2>/dev/null | grep -o '_ZN[^ ]*read_kernel[^ ]*' | head -1)
  cuobjdump -sass -fun "$f" .devbuild-$s/leanattn > $out/read_kernel-$s.sass 2>&1
  echo "$s $f: $(grep -c 'LDG' $out/read_kernel-$s.sass) LDG, $(grep -c 'STG' $out/read_kernel-$s.sass) STG"
done
bash bench/gpu/ab.sh .devbuild-F .devbuild-G $out/ab > $out/ab.log 2>&1; cat $out/ab/ab.txt

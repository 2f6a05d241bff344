#!/usr/bin/env bash
# v18: stage cursors in both kernels (D) against main (A) and the mma-only cursor (C).
set -uo pipefail
out=$1; mkdir -p $out
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
cuobjdump -sass -fun _ZN8leanattn4cuda18decode_simt_kernelI6__halfLi128ELi1ELb0EEEvNS0_12DecodeParamsE .devbuild-D/leanattn > $out/sass-D-simt128.sass 2>&1
cuobjdump -sass -fun _ZN8leanattn4cuda18decode_simt_kernelI6__halfLi128ELi1ELb0EEEvNS0_12DecodeParamsE .devbuild-A/leanattn > $out/sass-A-simt128.sass 2>&1
dev=.devbuild-D
{
  layouts=("--layout padded" "--layout paged --block-size 16" "--layout ragged" "--layout token-major")
  n=0
  for d in 64 96 128 256; do
    for gq in 1:1 1:2 3:1 7:1 4:4 5:4 16:2 7:8 71:1 16:8 71:4 128:8; do
      g=${gq%%:*}; q=${gq#*:}
      for dt in fp16 bf16; do
        echo "== $d $gq $dt"
        $dev/leanattn cuda validate ${layouts[$((n % 4))]} --dtype $dt --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $q --head-dim $d --ctx $q,700,2600 --strategy all || echo "   ^ FAILED"
        n=$((n + 1))
      done
    done
  done
  for layout in "padded" "paged --block-size 1" "ragged"; do for dt in fp16 bf16; do
    echo "== MHA $layout $dt"; $dev/leanattn cuda validate --batch 3 --heads 8 --head-dim 64 --ctx 1,5000,257 --layout $layout --dtype $dt --strategy all || echo "   ^ FAILED"
  done; done
} > $out/paths.log 2>&1
echo "paths: $(grep -c FAILED $out/paths.log) failed of $(grep -c '^==' $out/paths.log)"
timeout 200 compute-sanitizer --tool racecheck $dev/leanattn cuda validate --batch 1 --heads 32 --kv-heads 8 --head-dim 128 --ctx 3000 --strategy stream-k > $out/racecheck-gqa.log 2>&1; echo "racecheck GQA rc $?: $(tail -1 $out/racecheck-gqa.log)"
timeout 200 compute-sanitizer --tool racecheck $dev/leanattn cuda validate --batch 2 --heads 4 --head-dim 128 --ctx 3000,9 --layout ragged > $out/racecheck-mha.log 2>&1; echo "racecheck MHA rc $?: $(tail -1 $out/racecheck-mha.log)"
timeout 200 compute-sanitizer --tool synccheck $dev/leanattn cuda validate --batch 2 --heads 4 --head-dim 64 --ctx 3000,9 --layout ragged > $out/synccheck.log 2>&1; echo "synccheck rc $?: $(tail -1 $out/synccheck.log)"
timeout 200 compute-sanitizer --tool memcheck $dev/leanattn cuda validate --batch 2 --heads 8 --kv-heads 2 --head-dim 128 --ctx 300,70 --layout paged --block-size 16 > $out/memcheck-gqa.log 2>&1; echo "memcheck GQA rc $?: $(tail -1 $out/memcheck-gqa.log)"
timeout 200 compute-sanitizer --tool memcheck $dev/leanattn cuda validate --batch 2 --heads 8 --head-dim 64 --ctx 300,70 --layout paged --block-size 16 > $out/memcheck-mha.log 2>&1; echo "memcheck MHA rc $?: $(tail -1 $out/memcheck-mha.log)"
bash bench/gpu/ab.sh .devbuild-A .devbuild-D $out/ab-AD > $out/ab.log 2>&1
bash bench/gpu/ab.sh .devbuild-C .devbuild-D $out/ab-CD >> $out/ab.log 2>&1
cat $out/ab-AD/ab.txt; echo; cat $out/ab-CD/ab.txt

#!/usr/bin/env bash
# v19 candidate: fixed-split's reduce kernel reads its splits eight at a time. E (new) against D (v18).
set -uo pipefail
out=$1; mkdir -p $out
mkdir -p .devbuild .devbuild-D .devbuild-E
for f in leanattn libleanattn.so test_cuda; do xz -dc .devbuild-xz2/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
cp .devbuild/leanattn .devbuild-E/leanattn
xz -dc .devbuild-xz2/leanattn-D.xz > .devbuild-D/leanattn; chmod +x .devbuild-D/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $out/machine.txt; date -u >> $out/machine.txt
dev=.devbuild
timeout 120 $dev/test_cuda > $out/test_cuda.log 2>&1; echo "test_cuda rc $?: $(tail -1 $out/test_cuda.log)"
{
  n=0; layouts=("--layout padded" "--layout paged --block-size 16" "--layout ragged" "--layout token-major")
  for d in 64 96 128 256; do
    for gq in 1:1 1:2 3:1 7:1 4:4 5:4 16:2 7:8 71:1 16:8 71:4 128:8; do
      g=${gq%%:*}; q=${gq#*:}
      for dt in fp16 bf16; do
        echo "== $d $gq $dt"
        $dev/leanattn cuda validate ${layouts[$((n % 4))]} --dtype $dt --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $q --head-dim $d --ctx $q,700,2600 --strategy fixed-split || echo "   ^ FAILED"
        n=$((n + 1))
      done
    done
  done
  for f in data/models/*.json; do for q in 1 4; do
    echo "== $(basename $f .json) q$q"; $dev/leanattn cuda validate --model "$(basename $f .json)" --q-len $q --layout ragged --batch 4 --ctx 3000,77,1500,9000 --strategy fixed-split || echo "   ^ FAILED"
  done; done
  for s in 2 7 8 9 64 128; do echo "== splits $s"; $dev/leanattn cuda validate --batch 2 --heads 8 --kv-heads 1 --head-dim 128 --ctx 20000,33 --strategy fixed-split --splits $s || echo "   ^ FAILED"; done
} > $out/validate.log 2>&1
echo "validate: $(grep -c FAILED $out/validate.log) failed of $(grep -c '^==' $out/validate.log)"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool $dev/leanattn cuda validate --model falcon-7b --batch 2 --ctx 3000,700 --strategy fixed-split > $out/$tool.log 2>&1; echo "$tool rc $?: $(grep -E 'SUMMARY' $out/$tool.log | tail -1)"
done
bash bench/gpu/ab.sh .devbuild-D .devbuild-E $out/ab > $out/ab.log 2>&1; cat $out/ab/ab.txt | grep -E "shape|fixed-split"
for shape in "--model falcon-7b --batch 1 --ctx 16384" "--model falcon-7b --batch 4 --ctx 8192" "--model llama-3-8b --batch 1 --ctx 32768" "--model opt-30b --batch 1 --ctx 16384" "--model phi-3-mini --batch 1 --ctx 16384"; do
  for round in 1 2; do for side in D E; do
    echo "$shape | $round | $side | $(.devbuild-$side/leanattn cuda bench $shape --strategy fixed-split --format json | python3 -c 'import json,sys; print(" ".join(f"{r["strategy"]}={r["median_us"]:.2f}" for r in json.load(sys.stdin)["results"]))')"
  done; done
done > $out/models-fixed-split.txt 2>&1; cat $out/models-fixed-split.txt

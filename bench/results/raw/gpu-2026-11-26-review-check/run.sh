#!/usr/bin/env bash
# After the review's refactor of decode.cu (one set of checks per step, the fallback reusing them) and the step table's
# reused arrays: test_cuda and every kernel path validated both ways.
set -uo pipefail
out=$1; mkdir -p $out .devbuild
for f in leanattn test_cuda; do xz -dc .devbuild-xz-p11/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
timeout 200 .devbuild/test_cuda > $out/test_cuda.log 2>&1; echo "test_cuda rc $?: $(tail -2 $out/test_cuda.log | head -1)"
{ for L in device host; do for d in 64 96 128 256; do for gq in 1:1 7:1 16:2 71:4; do g=${gq%%:*}; q=${gq#*:}
  echo "== d $d group $g q_len $q lengths $L"; .devbuild/leanattn cuda validate --batch 3 --kv-heads 2 --heads $((2 * g)) --q-len $q --head-dim $d --ctx $q,700,2600 --layout paged --lengths $L || echo "   ^ FAILED"
done; done; done; } > $out/validate.log 2>&1
echo "validate: $(grep -c FAILED $out/validate.log) failed of $(grep -c '^==' $out/validate.log)"

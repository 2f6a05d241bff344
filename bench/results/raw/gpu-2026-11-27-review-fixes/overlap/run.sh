#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q170/run.sh $OUT", carry=[".devbuild-xz-q170"], kind="nvidia-h100-x1")
# run() also refuses softmax_lse overlapping out and a workspace overlapping either: test_cuda, and check.sh's
# validations of every cache layout and kernel path through the CLI (the library is not carried: the tree's 64 MiB).
set -uo pipefail
out=$1; q=.devbuild-xz-q170; r=$out/r; mkdir -p $r .devbuild
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
for f in test_cuda leanattn; do xz -dc $q/$f.xz > .devbuild/$f; chmod +x .devbuild/$f; done
timeout 300 .devbuild/test_cuda > $r/test_cuda.txt 2>&1; echo "test_cuda rc $?"; tail -2 $r/test_cuda.txt
export LEANATTN_DATA=$PWD/data
{ for layout in "padded" "token-major" "paged --block-size 16" "ragged"; do
    for shape in "--batch 3 --heads 8 --head-dim 64 --ctx 1,5000,257" "--batch 2 --heads 32 --kv-heads 8 --head-dim 128 --ctx 4100,129" "--model falcon-7b --batch 2 --q-len 4 --ctx 3000,900"; do
      echo "== $shape --layout $layout"; .devbuild/leanattn cuda validate $shape --layout $layout || echo "   ^ FAILED"
    done; done; } > $r/validate.txt 2>&1
echo "validate: $(grep -c FAILED $r/validate.txt) failed of $(grep -c '^==' $r/validate.txt)"
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out

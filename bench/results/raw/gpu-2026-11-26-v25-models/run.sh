#!/usr/bin/env bash
# Called as: run(command="bash .devbuild-xz-q68/run.sh $OUT", carry=[".devbuild-xz-q68"], kind="nvidia-h100-x1") at 17:18 UTC; .devbuild-xz-q68 held the CLI and libleanattn.so of kernel v25 (those of q67).
# Every model (models.py, fp16 and bf16, mirrored blocks) on kernel v25 (the build of q67), then sanitize.sh --quick.
set -o pipefail
out=$1; q=.devbuild-xz-q68; mkdir -p .devbuild
for f in leanattn libleanattn.so; do xz -dc $q/$f.xz > .devbuild/$f; done; chmod +x .devbuild/leanattn
export LEANATTN_LIBRARY=$PWD/.devbuild/libleanattn.so LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.max.sm --format=csv > $out/models-machine.txt; date -u >> $out/models-machine.txt
timeout 330 python3 bench/gpu/models.py --bf16 --out $out/models > $out/models.log 2>&1; echo "models rc $? at $SECONDS s"
tail -3 $out/models.log; date -u >> $out/models-machine.txt
timeout 130 bash bench/gpu/sanitize.sh $out/sanitize --quick --bin .devbuild/leanattn --deadline-s 110 > /dev/null 2>&1; echo "sanitize rc $? at $SECONDS s"
cat $out/sanitize/sanitize-summary.txt
bash bench/gpu/pack_out.sh $out

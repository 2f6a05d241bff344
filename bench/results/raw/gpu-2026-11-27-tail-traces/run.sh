#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q146/run.sh $OUT", carry=[".devbuild-xz-q140", ".devbuild-xz-q146"], kind="nvidia-h100-x1")
# The held-out sweep's worst-predicted shapes (kernel v34, steps of run()): each strategy timed and traced, for
# `leanattn simulate --trace`, to find which part of the plan the model gets wrong.
set -uo pipefail
out=$1; q=.devbuild-xz-q146; r=$out/r; mkdir -p $r .devbuild
xz -dc .devbuild-xz-q140/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
i=0
while read -r flags; do
  i=$((i+1))
  .devbuild/leanattn cuda bench $flags --repeat 50 --format json --trace $r/trace-$i.json > $r/bench-$i.json 2>> $r/log.txt
  echo "$i rc $? at $SECONDS s: $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print([(x['strategy'], x['grid'], round(x['median_us'],1)) for x in j['results']])" $r/bench-$i.json)"
done < $q/tail-shapes.txt
cp $q/tail-shapes.txt $r/
bash bench/gpu/pack_out.sh $out

#!/usr/bin/env bash
# run(command="bash .devbuild-xz-q135/run.sh $OUT", carry=[".devbuild-xz-q135"])
# Why stream-k steps of capacity plans at ragged live lengths run 15-35% slower than the simulator predicts: those steps
# are the paper's plan on the capacity plan's grid at the live lengths (core's live_schedule drops the snap there), so
# time that plan with cuda bench both ways, trace it as a step of run(), and time no-split beside it. Live lengths from
# bench/results/raw/gpu-2026-11-27-auto-default (draw 1 of each shape in shapes.txt).
set -uo pipefail
out=$1; q=.devbuild-xz-q135; r=$out/r; mkdir -p $r .devbuild
xz -dc $q/both.tar.xz | tar xf - -C .devbuild; chmod +x .devbuild/leanattn
export LEANATTN_DATA=$PWD/data PYTHONUNBUFFERED=1
L=.devbuild/leanattn
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $r/machine.txt; date -u >> $r/machine.txt; cat $r/machine.txt
while read name flags; do
  g=132; [ $name = cl34b16 ] && g=128
  case $name in l8b64|g27b64|cl34b16)
    $L cuda bench $flags --strategy stream-k --stream-k-rule paper --grid $g --lengths host --repeat 50 --format json > $r/$name-paper-host.json 2>> $r/log.txt
    $L cuda bench $flags --strategy stream-k --stream-k-rule paper --grid $g --repeat 50 --format json --trace $r/trace-$name-paper.json > $r/$name-paper-device.json 2>> $r/log.txt
    $L cuda bench $flags --strategy stream-k --lengths host --repeat 50 --format json > $r/$name-aligned-host.json 2>> $r/log.txt;;
  esac
  $L cuda bench $flags --strategy no-split --lengths host --repeat 50 --format json > $r/$name-nosplit-host.json 2>> $r/log.txt
  $L cuda bench $flags --strategy no-split --repeat 50 --format json --trace $r/trace-$name-nosplit.json > $r/$name-nosplit-device.json 2>> $r/log.txt
  echo "$name done at $SECONDS s"
done < $q/shapes.txt
for f in $r/*-host.json $r/*-device.json; do python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], [(x['strategy'], x['grid'], round(x['median_us'],1)) for x in j['results']])" $f; done
date -u >> $r/machine.txt
bash bench/gpu/pack_out.sh $out
